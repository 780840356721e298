// placeholder (sema helper)
#include "passes.hpp"
