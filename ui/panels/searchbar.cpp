#include "ui/panels/searchbar.h"

#include "ui/util/format.h"
#include "ui/util/theme.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QToolButton>

namespace ks::ui {

SearchBar::SearchBar(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->setSpacing(6);
    m_edit = new QLineEdit(this);
    m_edit->setPlaceholderText(QStringLiteral("Find slices by name (Enter: next, Shift+Enter: previous)"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setMinimumWidth(320);
    layout->addWidget(m_edit);
    m_regex = new QCheckBox(QStringLiteral("Regex"), this);
    m_case = new QCheckBox(QStringLiteral("Match case"), this);
    layout->addWidget(m_regex);
    layout->addWidget(m_case);
    m_prev = new QToolButton(this);
    m_prev->setText(QStringLiteral("◀"));
    m_prev->setToolTip(QStringLiteral("Previous match (Shift+Enter, Shift+F3)"));
    m_next = new QToolButton(this);
    m_next->setText(QStringLiteral("▶"));
    m_next->setToolTip(QStringLiteral("Next match (Enter, F3)"));
    layout->addWidget(m_prev);
    layout->addWidget(m_next);
    m_status = new QLabel(this);
    m_status->setMinimumWidth(160);
    layout->addWidget(m_status);
    layout->addStretch(1);
    auto* close = new QToolButton(this);
    close->setText(QStringLiteral("✕"));
    close->setAutoRaise(true);
    close->setToolTip(QStringLiteral("Close (Esc)"));
    layout->addWidget(close);

    m_debounce.setSingleShot(true);
    m_debounce.setInterval(200);
    auto request = [this] { emit searchRequested(text(), isRegex(), isCaseSensitive()); };
    connect(&m_debounce, &QTimer::timeout, this, request);
    connect(m_edit, &QLineEdit::textChanged, this, [this] { m_debounce.start(); });
    connect(m_regex, &QCheckBox::toggled, this, request);
    connect(m_case, &QCheckBox::toggled, this, request);
    connect(m_prev, &QToolButton::clicked, this, &SearchBar::previousRequested);
    connect(m_next, &QToolButton::clicked, this, &SearchBar::nextRequested);
    connect(close, &QToolButton::clicked, this, [this] {
        hide();
        emit closed();
    });
    connect(m_edit, &QLineEdit::returnPressed, this, [this] {
        // Enter before the debounce fired searches right away.
        if (m_debounce.isActive()) {
            m_debounce.stop();
            emit searchRequested(text(), isRegex(), isCaseSensitive());
        }
        emit nextRequested();
    });
    setStatus(-1, 0);
}

void SearchBar::activate()
{
    show();
    m_edit->setFocus();
    m_edit->selectAll();
}

QString SearchBar::text() const
{
    return m_edit->text();
}
bool SearchBar::isRegex() const
{
    return m_regex->isChecked();
}
bool SearchBar::isCaseSensitive() const
{
    return m_case->isChecked();
}
void SearchBar::setText(const QString& text)
{
    m_edit->setText(text);
}
void SearchBar::setRegex(bool regex)
{
    m_regex->setChecked(regex);
}

void SearchBar::setStatus(int index, int total)
{
    m_status->setStyleSheet(QString());
    m_prev->setEnabled(total > 0);
    m_next->setEnabled(total > 0);
    if (text().isEmpty())
        m_status->clear();
    else if (total == 0)
        m_status->setText(QStringLiteral("no matches"));
    else if (index < 0)
        m_status->setText(QStringLiteral("%1 matches").arg(formatCount(uint64_t(total))));
    else
        m_status->setText(
            QStringLiteral("%1 of %2").arg(formatCount(uint64_t(index + 1)), formatCount(uint64_t(total))));
}

void SearchBar::setBusy()
{
    m_status->setText(QStringLiteral("searching…"));
}

void SearchBar::setError(const QString& error)
{
    m_status->setStyleSheet(QStringLiteral("color:%1").arg(Theme::palette().error.name()));
    m_status->setText(error);
}

void SearchBar::keyPressEvent(QKeyEvent* e)
{
    if (e->key() == Qt::Key_Escape) {
        hide();
        emit closed();
        return;
    }
    if ((e->key() == Qt::Key_Return || e->key() == Qt::Key_Enter) && (e->modifiers() & Qt::ShiftModifier)) {
        emit previousRequested();
        return;
    }
    QWidget::keyPressEvent(e);
}

} // namespace ks::ui
