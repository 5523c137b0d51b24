// Anchor so the library is never empty while the UI grows.
namespace ks::ui {
const char* uiLibraryName() { return "kinetoscope_ui"; }
} // namespace ks::ui
