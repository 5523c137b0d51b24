#pragma once

#include "core/model/types.h"
#include "core/util/id.h"

#include <QMetaType>
#include <vector>

// Core value types carried by signals.
Q_DECLARE_METATYPE(ks::SliceRef)
Q_DECLARE_METATYPE(ks::TrackId)
Q_DECLARE_METATYPE(std::vector<ks::TrackId>)
