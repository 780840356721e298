// placeholder
#include <gtest/gtest.h>
TEST(Wgslsema, Placeholder) {}
