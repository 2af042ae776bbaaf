include(CMakeFindDependencyMacro)
find_dependency(PkgConfig)
pkg_check_modules(DEPS REQUIRED IMPORTED_TARGET yaml-0.1 jansson libutf8proc icu-uc icu-i18n)
include("${CMAKE_CURRENT_LIST_DIR}/skitTargets.cmake")
