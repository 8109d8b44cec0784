# Run by CMake as llama.cpp's own project begins (-DCMAKE_PROJECT_llama.cpp_INCLUDE_BEFORE=<this file>, which
# scripts/setup.sh and `factdebate setup` pass in CMAKE_ARGS): llama-cpp-python forces llama.cpp's `common`
# library on, which its Python package neither installs into llama_cpp/lib nor loads, and which is about half of
# the compile (benchmarks/decisions/llama_cpp_build.md). Turned off here, after that force, before llama.cpp
# reads it.
set(LLAMA_BUILD_COMMON OFF CACHE BOOL "llama: build common utils library" FORCE)
