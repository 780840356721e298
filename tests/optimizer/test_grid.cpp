#include "support/test_device.hpp"
