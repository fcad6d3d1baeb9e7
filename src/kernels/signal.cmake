# Signal (signal/signal.h): DFT and STFT over an FFT plan (radix-2 and
# Bluestein), the window functions and MelWeightMatrix, with the O(n^2)
# reference (signal/signal_reference.h).
add_library(loom_kernels_signal STATIC
  signal/dft.cc
  signal/fft_plan.cc
  signal/signal_reference.cc
  signal/windows.cc
)
target_link_libraries(loom_kernels_signal PUBLIC loom_kernels_core PRIVATE loom_warnings)

loom_add_test(NAME loom_kernels_signal_test
  SOURCES signal/dft_test.cc signal/windows_test.cc
  LIBS loom_kernels_signal loom_kernel_test_util LABELS kernels)
