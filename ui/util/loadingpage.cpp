#include "ui/util/loadingpage.h"

#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QVBoxLayout>

namespace ks::ui {

LoadingPage::LoadingPage(QWidget* parent) : QWidget(parent)
{
    auto* l = new QVBoxLayout(this);
    l->addStretch();
    m_status = new QLabel(this);
    m_status->setAlignment(Qt::AlignCenter);
    l->addWidget(m_status);
    m_progress = new QProgressBar(this);
    // A width of its own: in an empty layout the bar would shrink to its text.
    m_progress->setMinimumWidth(360);
    m_progress->setMaximumWidth(480);
    l->addWidget(m_progress, 0, Qt::AlignHCenter);
    auto* cancel = new QPushButton(QStringLiteral("Cancel"), this);
    l->addWidget(cancel, 0, Qt::AlignHCenter);
    l->addStretch();
    connect(cancel, &QPushButton::clicked, this, &LoadingPage::cancelRequested);
}

} // namespace ks::ui
