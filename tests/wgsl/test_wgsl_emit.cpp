// placeholder
#include <gtest/gtest.h>
TEST(Wgslemit, Placeholder) {}
