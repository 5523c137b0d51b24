#pragma once

#include <QTimer>
#include <QWidget>

class QCheckBox;
class QLabel;
class QLineEdit;
class QToolButton;

namespace ks::ui {

// Find bar above the timeline: substring or regular expression over slice names. Typing waits a
// moment before asking for a search so that each keystroke does not start one.
class SearchBar : public QWidget {
    Q_OBJECT
public:
    explicit SearchBar(QWidget* parent = nullptr);

    void activate(); // show, focus, select the text
    QString text() const;
    bool isRegex() const;
    bool isCaseSensitive() const;
    void setText(const QString& text);
    void setRegex(bool regex);
    void setStatus(int index, int total);
    void setBusy();
    void setError(const QString& error);

signals:
    void searchRequested(const QString& text, bool regex, bool caseSensitive);
    void nextRequested();
    void previousRequested();
    void closed();

protected:
    void keyPressEvent(QKeyEvent* e) override;

private:
    QLineEdit* m_edit;
    QCheckBox* m_regex;
    QCheckBox* m_case;
    QLabel* m_status;
    QToolButton* m_prev;
    QToolButton* m_next;
    QTimer m_debounce;
};

} // namespace ks::ui
