#include "ui/live/launchdialog.h"

#include "core/live/childprocess.h"
#include "core/live/launchenv.h"
#include "ui/util/theme.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace ks::ui {

namespace {

QWidget* withBrowse(QLineEdit* edit, QWidget* parent, const std::function<void()>& browse)
{
    auto* w = new QWidget(parent);
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(edit, 1);
    auto* b = new QToolButton(w);
    b->setText(QStringLiteral("…"));
    QObject::connect(b, &QToolButton::clicked, w, browse);
    h->addWidget(b);
    return w;
}

QSpinBox* spin(QWidget* parent, int minimum, int value, const QString& tip)
{
    auto* s = new QSpinBox(parent);
    s->setRange(minimum, 1000000);
    s->setValue(value);
    s->setToolTip(tip);
    return s;
}

} // namespace

LaunchDialog::LaunchDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(QStringLiteral("Launch a script"));
    m_interpreter = new QLineEdit(this);
    m_interpreter->setToolTip(QStringLiteral("The Python interpreter (searched in PATH when it has no '/')"));
    m_script = new QLineEdit(this);
    m_script->setPlaceholderText(QStringLiteral("train.py"));
    m_arguments = new QLineEdit(this);
    m_arguments->setPlaceholderText(QStringLiteral("--epochs 1 (quoted like a shell)"));
    m_workdir = new QLineEdit(this);
    m_workdir->setPlaceholderText(QStringLiteral("the script's directory"));
    m_env = new QPlainTextEdit(this);
    m_env->setPlaceholderText(QStringLiteral("KEY=VALUE per line; -KEY removes a variable"));
    m_env->setFixedHeight(64);

    m_mode = new QComboBox(this);
    m_mode->addItem(QStringLiteral("Live stream (steps and ranges as they happen)"));
    m_mode->addItem(QStringLiteral("PyTorch profiler windows (CPU ops, shapes, memory per window)"));
    m_cpu = new QCheckBox(QStringLiteral("CPU ops"), this);
    m_cuda = new QCheckBox(QStringLiteral("CUDA"), this);
    m_xpu = new QCheckBox(QStringLiteral("XPU"), this);
    m_shapes = new QCheckBox(QStringLiteral("Shapes"), this);
    m_memory = new QCheckBox(QStringLiteral("Memory"), this);
    m_stack = new QCheckBox(QStringLiteral("Stacks"), this);
    m_memory->setToolTip(QStringLiteral("Allocations, with parameters, gradients, optimizer state and inputs "
                                        "marked for the memory categories"));
    m_stack->setToolTip(
        QStringLiteral("Python call stacks of the ops: from the torch observer in native mode, "
                       "from torch.profiler's with_stack in windows mode"));
    auto* captures = new QWidget(this);
    auto* ch = new QHBoxLayout(captures);
    ch->setContentsMargins(0, 0, 0, 0);
    for (QCheckBox* c : {m_cpu, m_cuda, m_xpu, m_shapes, m_memory, m_stack})
        ch->addWidget(c);
    ch->addStretch(1);

    m_wait = spin(this, 0, 1, QStringLiteral("steps skipped at the start of each cycle"));
    m_warmup = spin(this, 0, 1, QStringLiteral("steps profiled but thrown away before each window"));
    m_active = spin(this, 1, 3, QStringLiteral("steps recorded in each window"));
    m_repeat = spin(this, 0, 0, QStringLiteral("number of windows (0: until the script ends)"));
    m_skipFirst = spin(this, 0, 0, QStringLiteral("steps skipped once at the very start"));
    m_scheduleRow = new QWidget(this);
    auto* sh = new QHBoxLayout(m_scheduleRow);
    sh->setContentsMargins(0, 0, 0, 0);
    const std::pair<const char*, QSpinBox*> fields[] = {{"wait", m_wait},
                                                        {"warmup", m_warmup},
                                                        {"active", m_active},
                                                        {"repeat", m_repeat},
                                                        {"skip first", m_skipFirst}};
    for (const auto& [label, box] : fields) {
        sh->addWidget(new QLabel(QString::fromLatin1(label), m_scheduleRow));
        sh->addWidget(box);
    }
    sh->addStretch(1);

    auto* form = new QFormLayout;
    form->addRow(QStringLiteral("Interpreter"), withBrowse(m_interpreter, this, [this] {
                     const QString f = QFileDialog::getOpenFileName(this, QStringLiteral("Interpreter"));
                     if (!f.isEmpty()) m_interpreter->setText(f);
                 }));
    form->addRow(QStringLiteral("Script"), withBrowse(m_script, this, [this] {
                     const QString f =
                         QFileDialog::getOpenFileName(this, QStringLiteral("Script"), QString(),
                                                      QStringLiteral("Python (*.py);;All files (*)"));
                     if (!f.isEmpty()) m_script->setText(f);
                 }));
    form->addRow(QStringLiteral("Arguments"), m_arguments);
    form->addRow(QStringLiteral("Working directory"), withBrowse(m_workdir, this, [this] {
                     const QString d =
                         QFileDialog::getExistingDirectory(this, QStringLiteral("Working directory"));
                     if (!d.isEmpty()) m_workdir->setText(d);
                 }));
    form->addRow(QStringLiteral("Environment"), m_env);
    form->addRow(QStringLiteral("Capture"), m_mode);
    form->addRow(QString(), captures);
    form->addRow(QStringLiteral("Schedule"), m_scheduleRow);

    m_message = new QLabel(this);
    followTheme(m_message, [](const Palette& p) { return QStringLiteral("color: %1").arg(p.error.name()); });
    m_message->setWordWrap(true);
    m_message->hide();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(QStringLiteral("Start"));
    connect(buttons, &QDialogButtonBox::accepted, this, &LaunchDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &LaunchDialog::reject);
    connect(m_mode, &QComboBox::currentIndexChanged, this, [this] { updateModeWidgets(); });

    auto* v = new QVBoxLayout(this);
    v->addLayout(form);
    v->addWidget(m_message);
    v->addWidget(buttons);
    resize(720, sizeHint().height());
    load();
    updateModeWidgets();
}

void LaunchDialog::updateModeWidgets()
{
    const bool windows = m_mode->currentIndex() == 1;
    m_scheduleRow->setEnabled(windows);
}

live::LaunchRequest LaunchDialog::request() const
{
    live::LaunchRequest r;
    const QString interpreter = m_interpreter->text().trimmed();
    r.argv.push_back((interpreter.isEmpty() ? QStringLiteral("python3") : interpreter).toStdString());
    if (!m_script->text().trimmed().isEmpty()) r.argv.push_back(m_script->text().trimmed().toStdString());
    for (const QString& a : QProcess::splitCommand(m_arguments->text()))
        r.argv.push_back(a.toStdString());
    QString wd = m_workdir->text().trimmed();
    if (wd.isEmpty() && !m_script->text().trimmed().isEmpty())
        wd = QFileInfo(m_script->text().trimmed()).absolutePath();
    r.workdir = wd.toStdString();
    for (const QString& raw : m_env->toPlainText().split(QLatin1Char('\n'))) {
        const QString line = raw.trimmed();
        if (line.isEmpty() || line.startsWith(QLatin1Char('#'))) continue;
        if (line.startsWith(QLatin1Char('-'))) {
            r.env.emplace_back(line.mid(1).trimmed().toStdString(), std::nullopt);
            continue;
        }
        const qsizetype eq = line.indexOf(QLatin1Char('='));
        if (eq > 0) r.env.emplace_back(line.left(eq).trimmed().toStdString(), line.mid(eq + 1).toStdString());
    }
    live::CaptureOptions& c = r.capture;
    c.mode = m_mode->currentIndex() == 1 ? live::CaptureOptions::Mode::Windows
                                         : live::CaptureOptions::Mode::Native;
    c.cpu = m_cpu->isChecked();
    c.cuda = m_cuda->isChecked();
    c.xpu = m_xpu->isChecked();
    c.shapes = m_shapes->isChecked();
    c.memory = m_memory->isChecked();
    c.stack = m_stack->isChecked();
    c.schedule.wait = m_wait->value();
    c.schedule.warmup = m_warmup->value();
    c.schedule.active = m_active->value();
    c.schedule.repeat = m_repeat->value();
    c.schedule.skipFirst = m_skipFirst->value();
    return r;
}

QString LaunchDialog::validate() const
{
    const live::LaunchRequest r = request();
    if (m_script->text().trimmed().isEmpty()) return QStringLiteral("Choose a script to run.");
    std::string error;
    if (!r.workdir.empty() && !QFileInfo(QString::fromStdString(r.workdir)).isDir())
        return QStringLiteral("The working directory does not exist: %1")
            .arg(QString::fromStdString(r.workdir));
    if (live::ChildProcess::resolveProgram(r.argv[0], live::currentEnvironment(), r.workdir, error).empty())
        return QStringLiteral("Interpreter: %1").arg(QString::fromStdString(error));
    error = live::checkPythonScript(r.argv, r.workdir);
    if (!error.empty()) return QString::fromStdString(error);
    return {};
}

void LaunchDialog::accept()
{
    const QString problem = validate();
    if (!problem.isEmpty()) {
        m_message->setText(problem);
        m_message->show();
        return;
    }
    save();
    QDialog::accept();
}

void LaunchDialog::load()
{
    QSettings s;
    s.beginGroup(QStringLiteral("live"));
    m_interpreter->setText(s.value(QStringLiteral("interpreter"), QStringLiteral("python3")).toString());
    m_script->setText(s.value(QStringLiteral("script")).toString());
    m_arguments->setText(s.value(QStringLiteral("arguments")).toString());
    m_workdir->setText(s.value(QStringLiteral("workdir")).toString());
    m_env->setPlainText(s.value(QStringLiteral("environment")).toString());
    m_mode->setCurrentIndex(s.value(QStringLiteral("mode"), 0).toInt() == 1 ? 1 : 0);
    m_cpu->setChecked(s.value(QStringLiteral("cpu"), true).toBool());
    m_cuda->setChecked(s.value(QStringLiteral("cuda"), false).toBool());
    m_xpu->setChecked(s.value(QStringLiteral("xpu"), false).toBool());
    m_shapes->setChecked(s.value(QStringLiteral("shapes"), false).toBool());
    m_memory->setChecked(s.value(QStringLiteral("memory"), true).toBool());
    m_stack->setChecked(s.value(QStringLiteral("stack"), false).toBool());
    m_wait->setValue(s.value(QStringLiteral("wait"), 1).toInt());
    m_warmup->setValue(s.value(QStringLiteral("warmup"), 1).toInt());
    m_active->setValue(s.value(QStringLiteral("active"), 3).toInt());
    m_repeat->setValue(s.value(QStringLiteral("repeat"), 0).toInt());
    m_skipFirst->setValue(s.value(QStringLiteral("skip_first"), 0).toInt());
}

void LaunchDialog::save() const
{
    QSettings s;
    s.beginGroup(QStringLiteral("live"));
    s.setValue(QStringLiteral("interpreter"), m_interpreter->text().trimmed());
    s.setValue(QStringLiteral("script"), m_script->text().trimmed());
    s.setValue(QStringLiteral("arguments"), m_arguments->text());
    s.setValue(QStringLiteral("workdir"), m_workdir->text().trimmed());
    s.setValue(QStringLiteral("environment"), m_env->toPlainText());
    s.setValue(QStringLiteral("mode"), m_mode->currentIndex());
    s.setValue(QStringLiteral("cpu"), m_cpu->isChecked());
    s.setValue(QStringLiteral("cuda"), m_cuda->isChecked());
    s.setValue(QStringLiteral("xpu"), m_xpu->isChecked());
    s.setValue(QStringLiteral("shapes"), m_shapes->isChecked());
    s.setValue(QStringLiteral("memory"), m_memory->isChecked());
    s.setValue(QStringLiteral("stack"), m_stack->isChecked());
    s.setValue(QStringLiteral("wait"), m_wait->value());
    s.setValue(QStringLiteral("warmup"), m_warmup->value());
    s.setValue(QStringLiteral("active"), m_active->value());
    s.setValue(QStringLiteral("repeat"), m_repeat->value());
    s.setValue(QStringLiteral("skip_first"), m_skipFirst->value());
}

} // namespace ks::ui
