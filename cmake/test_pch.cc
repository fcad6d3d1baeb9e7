// The object the test precompiled header (cmake/test_pch.h) is built for.
