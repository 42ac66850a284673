# Tests that run the real gpulab binary. Added by the app area.
