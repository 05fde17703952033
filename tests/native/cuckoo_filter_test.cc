#include <gtest/gtest.h>
#include "cuckoo_filter.h"
TEST(Placeholder, Builds) { EXPECT_EQ(cuckoo::kFormatVersion, 1); }
