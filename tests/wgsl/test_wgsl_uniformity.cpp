// placeholder
#include <gtest/gtest.h>
TEST(Wgsluniformity, Placeholder) {}
