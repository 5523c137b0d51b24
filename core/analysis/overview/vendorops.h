#pragma once

#include <span>
#include <string_view>

namespace ks {

struct VendorOp {
    std::string_view name;
    std::string_view category;
};

// TraceLens's categories for vendor / inference-engine ops it knows by name (see vendorops.cpp).
std::span<const VendorOp> vendorOps();

} // namespace ks
