# lossfuzz_add_kernel_test(NAME KERNEL [REGRESSIONS DIR] [SECONDS N] [TARGET T])
# adds a user's kernel (KERNEL: a shared-library target built against
# <lossfuzz/kernel.h>, or a path to one) to the user's CTest:
#   NAME/fuzz         `lossfuzz fuzz`: SECONDS (default 10) of structure-aware
#                     fuzzing of fuzz target T (default fuzz_class) from lossfuzz's
#                     seed corpus, in the test's own process (no compiler or
#                     fuzzing engine needed); a finding fails the test and leaves
#                     its minimized repro in NAME-findings/ under the build tree
#   NAME/regressions  `lossfuzz check --kernel` over DIR, where given: the repros
#                     found before, kept forever (skipped while DIR has none)
function(lossfuzz_add_kernel_test name)
  cmake_parse_arguments(LF "" "KERNEL;REGRESSIONS;SECONDS;TARGET" "" ${ARGN})
  if(NOT LF_KERNEL)
    message(FATAL_ERROR "lossfuzz_add_kernel_test(${name}): KERNEL is required")
  endif()
  if(TARGET ${LF_KERNEL})
    set(lib $<TARGET_FILE:${LF_KERNEL}>)
  else()
    set(lib ${LF_KERNEL})
  endif()
  if(NOT LF_SECONDS)
    set(LF_SECONDS 10)
  endif()
  if(NOT LF_TARGET)
    set(LF_TARGET fuzz_class)
  endif()
  add_test(NAME ${name}/fuzz COMMAND lossfuzz::lossfuzz fuzz --kernel ${lib} --target ${LF_TARGET}
           --seconds ${LF_SECONDS} --out ${CMAKE_CURRENT_BINARY_DIR}/${name}-findings)
  set_tests_properties(${name}/fuzz PROPERTIES TIMEOUT 600)
  if(LF_REGRESSIONS) # skipped, saying so, while the folder holds no case yet (a new project's)
    add_test(NAME ${name}/regressions COMMAND sh -c
             "ls \"$1\"/*.json >/dev/null 2>&1 || { echo \"SKIP: no regressions in $1 yet\"; exit 77; }; exec \"$0\" check --kernel \"$2\" \"$1\""
             $<TARGET_FILE:lossfuzz::lossfuzz> ${LF_REGRESSIONS} ${lib})
    set_tests_properties(${name}/regressions PROPERTIES SKIP_RETURN_CODE 77)
  endif()
endfunction()
