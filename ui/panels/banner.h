#pragma once

#include "ui/panels/dismissiblestrip.h"

#include <QStringList>

namespace ks::ui {

// A dismissible strip above the timeline for reader warnings.
class Banner : public DismissibleStrip {
    Q_OBJECT
public:
    explicit Banner(QWidget* parent = nullptr);
    void showMessages(const QStringList& messages);
};

} // namespace ks::ui
