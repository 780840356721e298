// placeholder (sema helper): Type's methods
#include "ast.hpp"
namespace wgslvk::wgsl {
bool Type::is_abstract() const { return false; }
const Type* Type::scalar() const { return nullptr; }
std::string Type::wgsl() const { return "?"; }
}  // namespace wgslvk::wgsl
