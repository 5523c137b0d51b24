// Read by moc before every source (CMAKE_AUTOMOC_MOC_OPTIONS). Qt 6.4's moc preprocessor mishandles
// GCC 12's <compare> when that is the first standard header it meets (a core header like
// util/id.h), failing with "Parse error at std" in <concepts>; pulling in <utility> first avoids it.
#include <utility>
