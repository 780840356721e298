// placeholder
#include <gtest/gtest.h>
TEST(Wgslparser, Placeholder) {}
