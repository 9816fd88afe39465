# empl's dependencies, for its own CMakeLists and for its installed package config (a static
# libempl.a carries even its PRIVATE link dependencies to the consumer's link line). Each is found
# only once, so a project that already found one of them keeps its own.
if(NOT TARGET TBB::tbb)
  find_package(TBB REQUIRED)            # libtbb-dev (oneTBB)
endif()
find_package(PkgConfig REQUIRED)
if(NOT TARGET PkgConfig::OPENBLAS)
  pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)   # libopenblas-dev (CBLAS)
endif()
if(NOT TARGET PkgConfig::HEALPIX)
  # libhealpix-cxx-dev: the field's reference HEALPix code, for graph/healpix.cpp only. It ships no
  # CMake config, and its pkg-config flags carry -fopenmp: stripped here, so that OpenMP's thread
  # pool never joins oneTBB's (the calls we make into it are serial). Linked PRIVATE: its headers
  # put RING, NEST, vec3 and arr in the global namespace, so no header of ours includes them.
  pkg_check_modules(HEALPIX REQUIRED IMPORTED_TARGET healpix_cxx)
  foreach(healpix_property INTERFACE_COMPILE_OPTIONS INTERFACE_LINK_OPTIONS INTERFACE_LINK_LIBRARIES)
    get_target_property(healpix_flags PkgConfig::HEALPIX ${healpix_property})
    if(healpix_flags)
      list(REMOVE_ITEM healpix_flags -fopenmp)
      set_target_properties(PkgConfig::HEALPIX PROPERTIES ${healpix_property} "${healpix_flags}")
    endif()
  endforeach()
endif()
# MPI, when empl was built with EMPL_MPI (the package config sets EMPL_MPI as it was built).
if(EMPL_MPI AND NOT TARGET MPI::MPI_CXX)
  set(MPI_CXX_SKIP_MPICXX ON)
  find_package(MPI REQUIRED COMPONENTS CXX)   # libopenmpi-dev
endif()
