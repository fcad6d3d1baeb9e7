// Precompiled once per build for every test file (loom_add_test): the
// GoogleTest and standard headers that every test parses, 3-4 s of each
// test file's compile on the 2-core machines. Only headers that never
// change with Loom's code belong here: a change rebuilds every test.
#pragma once
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>
