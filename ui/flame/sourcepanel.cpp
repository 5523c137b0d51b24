#include "ui/flame/sourcepanel.h"

#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QAction>
#include <QDesktopServices>
#include <QFile>
#include <QFileInfo>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QPushButton>
#include <QTableWidget>
#include <QTextStream>
#include <QUrl>
#include <QVBoxLayout>
#include <algorithm>

namespace ks::ui {

namespace {

// Files bigger than this are not shown (a generated file, a wrong mapping onto a binary).
constexpr qint64 kMaxSourceBytes = 8 << 20;

} // namespace

SourcePanel::SourcePanel(QWidget* parent) : QWidget(parent)
{
    m_title = new QLabel(this);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_title->setWordWrap(true);
    m_missing = new QLabel(this);
    m_missing->setWordWrap(true);
    m_from = new QLineEdit(this);
    m_from->setPlaceholderText(tr("Trace's path prefix"));
    m_to = new QLineEdit(this);
    m_to->setPlaceholderText(tr("This machine's"));
    auto* apply = new QPushButton(tr("Map"), this);
    m_mapping = new QWidget(this);
    auto* map = new QHBoxLayout(m_mapping);
    map->setContentsMargins(0, 0, 0, 0);
    map->addWidget(m_from, 1);
    map->addWidget(new QLabel(QStringLiteral("→"), m_mapping));
    map->addWidget(m_to, 1);
    map->addWidget(apply);
    m_table = new QTableWidget(this);
    m_table->setColumnCount(3);
    m_table->setHorizontalHeaderLabels({tr("Calls' time"), tr("Line"), tr("Source")});
    // Every table's column says what it holds (as the table-model base's headers do).
    const QStringList tips = {tr("Time of the frame's calls made from this line (the chosen metric)"),
                              tr("Line number in the file"), tr("The file's text")};
    for (int c = 0; c < tips.size(); ++c)
        m_table->horizontalHeaderItem(c)->setToolTip(tips[c]);
    m_table->verticalHeader()->hide();
    // One text line per row, as an editor shows the file (the style's default row is taller).
    m_table->verticalHeader()->setDefaultSectionSize(
        std::max(QFontMetrics(QFontDatabase::systemFont(QFontDatabase::FixedFont)).height(),
                 fontMetrics().height()) +
        4);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);
    auto* open = new QAction(tr("Open in Editor"), m_table);
    m_table->addAction(open);
    connect(open, &QAction::triggered, this, &SourcePanel::openInEditor);
    connect(apply, &QPushButton::clicked, this, &SourcePanel::load);
    connect(m_to, &QLineEdit::returnPressed, this, &SourcePanel::load);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_title);
    layout->addWidget(m_missing);
    layout->addWidget(m_mapping);
    layout->addWidget(m_table, 1);
    clear();
}

void SourcePanel::clear()
{
    // Not the last file's name over an empty table.
    m_title->setText(tr("Click a Python frame to see its source"));
    m_where = SourceLocation{};
    m_lines.clear();
    m_path.clear();
    m_found = false;
    m_table->setRowCount(0);
    m_missing->hide();
    m_mapping->hide();
}

void SourcePanel::showLocation(const SourceLocation& where, const std::map<int, TimeNs>& lines)
{
    m_where = where;
    m_lines = lines;
    load();
}

void SourcePanel::setLineTimes(const std::map<int, TimeNs>& lines)
{
    m_lines = lines;
    for (int i = 0; i < m_table->rowCount(); ++i) {
        const auto t = m_lines.find(i + 1);
        if (QTableWidgetItem* item = m_table->item(i, 0))
            item->setText(t == m_lines.end() ? QString() : formatDuration(t->second));
    }
    m_table->resizeColumnToContents(0);
}

void SourcePanel::load()
{
    m_table->setRowCount(0);
    const std::string mapped =
        mapSourcePath(m_where.file, m_from->text().toStdString(), m_to->text().toStdString());
    m_path = QString::fromStdString(mapped);
    m_title->setText(QStringLiteral("%1:%2 — %3")
                         .arg(QString::fromStdString(m_where.file))
                         .arg(m_where.line)
                         .arg(QString::fromStdString(m_where.function)));
    QFile f(m_path);
    m_found = QFileInfo(m_path).isFile() && f.size() <= kMaxSourceBytes && f.open(QIODevice::ReadOnly);
    if (!m_found) {
        m_missing->setText(tr("%1 is not on this machine (the trace may come from another one): map the "
                              "trace's path prefix to where the code is here.")
                               .arg(m_path));
        m_missing->setStyleSheet(QStringLiteral("color: %1").arg(Theme::palette().warning.name()));
        m_missing->show();
        m_mapping->show();
        return;
    }
    m_missing->hide();
    m_mapping->setVisible(!m_from->text().isEmpty() || !m_to->text().isEmpty());
    QTextStream in(&f);
    QStringList text;
    while (!in.atEnd())
        text << in.readLine();
    m_table->setRowCount(int(text.size()));
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (int i = 0; i < text.size(); ++i) {
        const auto t = m_lines.find(i + 1);
        auto* time = new QTableWidgetItem(t == m_lines.end() ? QString() : formatDuration(t->second));
        time->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        auto* number = new QTableWidgetItem(QString::number(i + 1));
        number->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        number->setForeground(Theme::palette().mutedText);
        auto* source = new QTableWidgetItem(text[i]);
        source->setFont(mono);
        m_table->setItem(i, 0, time);
        m_table->setItem(i, 1, number);
        m_table->setItem(i, 2, source);
    }
    m_table->resizeColumnToContents(0);
    m_table->resizeColumnToContents(1);
    if (m_where.line >= 1 && m_where.line <= text.size()) {
        m_table->selectRow(m_where.line - 1);
        m_table->scrollToItem(m_table->item(m_where.line - 1, 2), QAbstractItemView::PositionAtCenter);
    }
}

QStringList SourcePanel::editorCommand() const
{
    QString editor = qEnvironmentVariable("VISUAL");
    if (editor.isEmpty()) editor = qEnvironmentVariable("EDITOR");
    if (editor.isEmpty()) return {};
    QStringList cmd = QProcess::splitCommand(editor);
    if (cmd.isEmpty()) return {};
    const int row = m_table->currentRow();
    const int line = row >= 0 ? row + 1 : m_where.line;
    // +LINE FILE: what vi, emacs, nano, gedit and kate take.
    cmd << QStringLiteral("+%1").arg(line) << m_path;
    return cmd;
}

void SourcePanel::openInEditor()
{
    if (!m_found) return;
    QStringList cmd = editorCommand();
    if (cmd.isEmpty()) {
        QDesktopServices::openUrl(QUrl::fromLocalFile(m_path));
        return;
    }
    const QString program = cmd.takeFirst();
    QProcess::startDetached(program, cmd);
}

} // namespace ks::ui
