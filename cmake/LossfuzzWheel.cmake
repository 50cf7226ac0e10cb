# LossfuzzWheel.cmake - what `pip install .` puts where (scikit-build-core's
# directories, pyproject.toml): the lossfuzz command into the environment's bin/
# (on its PATH), the worker's modules and the seed corpora into
# <environment>/share/lossfuzz, beside bin/ as an installed lossfuzz looks for
# them (harness/base/lf_data.c), and the guard library into the Python package
# (python/lossfuzz/_native.py loads it from there).
install(TARGETS lossfuzz RUNTIME DESTINATION ${SKBUILD_SCRIPTS_DIR})
install(TARGETS lossfuzz_guard LIBRARY DESTINATION ${SKBUILD_PLATLIB_DIR}/lossfuzz)
install(FILES ${LF_WORKER_FILES} DESTINATION ${SKBUILD_DATA_DIR}/share/lossfuzz/python)
install(DIRECTORY corpus/ DESTINATION ${SKBUILD_DATA_DIR}/share/lossfuzz/corpus)
# The headers C and CUDA kernels are built against: <environment>/include/lossfuzz
install(FILES include/lossfuzz/kernel.h include/lossfuzz/guard.h DESTINATION ${SKBUILD_DATA_DIR}/include/lossfuzz)
