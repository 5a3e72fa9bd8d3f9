# Every third-party dependency is found here, in one place. scripts/setup.sh installs them.
# Debian 12's CMake 3.25.1 fails in FindCUDAToolkit on CUDA 13, which has no libnvToolsExt: it
# marks the missing CUDA::nvToolsExt deprecated whenever the project requires CMake >= 3.25 (fixed in
# 3.25.2). Below 3.25.2 the module is shown a lower minimum; nothing here uses nvToolsExt (nvtx3).
if(CMAKE_VERSION VERSION_LESS 3.25.2)
  set(_ptxbench_min_version ${CMAKE_MINIMUM_REQUIRED_VERSION})
  set(CMAKE_MINIMUM_REQUIRED_VERSION 3.24)
  find_package(CUDAToolkit REQUIRED)
  set(CMAKE_MINIMUM_REQUIRED_VERSION ${_ptxbench_min_version})
else()
  find_package(CUDAToolkit REQUIRED)
endif()
find_package(nlohmann_json 3.10 REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
# toml++ from its headers, so the host tools carry no libtomlplusplus.so to GPU hosts; its
# implementation is compiled once (src/problems/toml_impl.cpp), not inline in each file using it.
find_path(TOMLPP_INCLUDE_DIR toml++/toml.h REQUIRED)
add_library(ptxbench_tomlpp STATIC ${PROJECT_SOURCE_DIR}/src/problems/toml_impl.cpp)
target_include_directories(ptxbench_tomlpp SYSTEM PUBLIC ${TOMLPP_INCLUDE_DIR})
target_compile_definitions(ptxbench_tomlpp PUBLIC TOML_HEADER_ONLY=0 TOML_EXCEPTIONS=1)
find_package(SQLite3 REQUIRED)
find_package(spdlog CONFIG REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)
# libelf linked statically: GPU hosts need not have libelf.so.
find_library(LIBELF_STATIC NAMES libelf.a REQUIRED)
find_package(ZLIB REQUIRED)
add_library(ptxbench_libelf INTERFACE)
target_link_libraries(ptxbench_libelf INTERFACE ${LIBELF_STATIC} ZLIB::ZLIB)
find_package(Threads REQUIRED)
# The model clients' HTTP (src/agent/http).
find_package(CURL REQUIRED)
# HTTP servers: the reward API (src/api, `serve --http`) and the tests' scripted model servers.
# Debian's cpp-httplib is a compiled library whose header depends on the defines in its .pc file,
# so it is taken from pkg-config.
find_package(PkgConfig REQUIRED)
pkg_check_modules(HTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
# The Redis Streams job queue for many hosts (src/service/queue): Debian's libhiredis-dev, linked
# statically like libelf, so GPU hosts need no libhiredis.so.
find_path(HIREDIS_INCLUDE_DIR hiredis/hiredis.h REQUIRED)
find_library(HIREDIS_STATIC NAMES libhiredis.a REQUIRED)
add_library(ptxbench_hiredis INTERFACE)
target_include_directories(ptxbench_hiredis SYSTEM INTERFACE ${HIREDIS_INCLUDE_DIR})
target_link_libraries(ptxbench_hiredis INTERFACE ${HIREDIS_STATIC})
if(PTXBENCH_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(PTXBENCH_BUILD_BENCH)
  find_package(benchmark QUIET)
endif()

# NVML's header is absent from CPU machines' toolkits; setup.sh installs PyPI's nvidia-nvml-dev.
# The library itself is opened at run time (src/probes/nvml_monitor.cpp), so no link dependency.
find_path(NVML_INCLUDE_DIR nvml.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV PTXBENCH_NVML_INCLUDE
  PATHS /usr/include /usr/local/cuda/include)
if(NOT NVML_INCLUDE_DIR)
  execute_process(COMMAND python3 -c "import nvidia, os; print(os.path.join(list(nvidia.__path__)[0], 'cu13', 'include'))"
                  OUTPUT_VARIABLE _nv_py_inc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  find_path(NVML_INCLUDE_DIR nvml.h PATHS ${_nv_py_inc} NO_DEFAULT_PATH)
endif()
if(NOT NVML_INCLUDE_DIR)
  message(FATAL_ERROR "nvml.h not found: run scripts/setup.sh (installs PyPI nvidia-nvml-dev)")
endif()
message(STATUS "nvml.h: ${NVML_INCLUDE_DIR}")

# cuDNN (the attention baseline): its headers at build time, the cuDNN frontend's header-only C++
# graph API (PyPI nvidia-cudnn-frontend, installed by setup.sh), and no link dependency: the worker
# opens libcudnn.so.9 at run time (problems/common/attention/cudnn_sdpa.cpp), so it starts without it.
find_path(CUDNN_INCLUDE_DIR cudnn.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} ENV PTXBENCH_CUDNN_INCLUDE
  PATHS /usr/include /usr/include/x86_64-linux-gnu /usr/local/cuda/include)
if(NOT CUDNN_INCLUDE_DIR)
  message(FATAL_ERROR "cudnn.h not found (cuDNN 9 headers): install cuDNN or set PTXBENCH_CUDNN_INCLUDE")
endif()
find_path(CUDNN_FRONTEND_INCLUDE_DIR cudnn_frontend.h HINTS ENV PTXBENCH_CUDNN_FRONTEND_INCLUDE)
if(NOT CUDNN_FRONTEND_INCLUDE_DIR)
  execute_process(COMMAND python3 -c "import importlib.metadata as m; print(m.distribution('nvidia-cudnn-frontend').locate_file('include'))"
                  OUTPUT_VARIABLE _fe_py_inc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  find_path(CUDNN_FRONTEND_INCLUDE_DIR cudnn_frontend.h PATHS ${_fe_py_inc} NO_DEFAULT_PATH)
endif()
if(NOT CUDNN_FRONTEND_INCLUDE_DIR)
  message(FATAL_ERROR "cudnn_frontend.h not found: run scripts/setup.sh (installs PyPI nvidia-cudnn-frontend)")
endif()
message(STATUS "cudnn.h: ${CUDNN_INCLUDE_DIR}; cudnn_frontend.h: ${CUDNN_FRONTEND_INCLUDE_DIR}")
add_library(ptxbench_cudnn_frontend INTERFACE)
target_include_directories(ptxbench_cudnn_frontend SYSTEM INTERFACE ${CUDNN_FRONTEND_INCLUDE_DIR} ${CUDNN_INCLUDE_DIR})
target_compile_definitions(ptxbench_cudnn_frontend INTERFACE NV_CUDNN_FRONTEND_USE_DYNAMIC_LOADING)
target_link_libraries(ptxbench_cudnn_frontend INTERFACE CUDA::cudart ${CMAKE_DL_LIBS})
# Only a hint for the run-time search (the library may live elsewhere on the GPU host).
find_library(CUDNN_LIBRARY NAMES libcudnn.so.9 cudnn
  HINTS ${CUDAToolkit_LIBRARY_DIR} PATHS /usr/lib/x86_64-linux-gnu /usr/local/cuda/lib64)
if(CUDNN_LIBRARY)
  get_filename_component(_cudnn_dir ${CUDNN_LIBRARY} DIRECTORY)
  target_compile_definitions(ptxbench_cudnn_frontend INTERFACE PTXBENCH_CUDNN_LIBRARY="${_cudnn_dir}/libcudnn.so.9")
endif()
