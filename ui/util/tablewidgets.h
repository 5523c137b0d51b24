#pragma once

class QAbstractItemModel;
class QTableView;
class QToolButton;
class QWidget;

namespace ks::ui {

// The look every statistics table in the analysis panels shares: sortable, whole-row selection,
// alternating rows, one line per row with names elided in the middle, no row numbers. Its columns
// fit their content (fitColumnsToContents) whenever the model is reset.
QTableView* newStatsTable(QAbstractItemModel* model, QWidget* parent);

// The widest a column gets from its content; longer names are elided (the cell tooltip has them).
constexpr int kMaxFittedColumnWidth = 480;

// Sizes every column to the wider of its header and the rows in view, at most maxWidth; the last
// column then stretches over what is left.
void fitColumnsToContents(QTableView* table, int maxWidth = kMaxFittedColumnWidth);
// Calls fitColumnsToContents on the next turn of the event loop after each reset of the table's
// model (one call however many resets come together).
void fitColumnsOnReset(QTableView* table, int maxWidth = kMaxFittedColumnWidth);

// "◀ Previous" / "Next ▶": step through a row's occurrences in the timeline.
QToolButton* newOccurrenceButton(bool next, QWidget* parent);

} // namespace ks::ui
