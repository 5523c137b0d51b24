#pragma once

class QAbstractItemModel;
class QTableView;
class QToolButton;
class QWidget;

namespace ks::ui {

// The look every statistics table in the analysis panels shares: sortable, whole-row selection,
// alternating rows, one line per row with names elided in the middle, no row numbers.
QTableView* newStatsTable(QAbstractItemModel* model, QWidget* parent);

// "◀ Previous" / "Next ▶": step through a row's occurrences in the timeline.
QToolButton* newOccurrenceButton(bool next, QWidget* parent);

} // namespace ks::ui
