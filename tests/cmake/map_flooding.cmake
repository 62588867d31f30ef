# test_map_flooding floods maps with keys chosen to share one hash chain
# (tens of millions of chain steps; seconds under the sanitizers, more on
# emulated targets): a generous limit of its own, no timed assertion.
if(TEST test_map_flooding)
  set_tests_properties(test_map_flooding PROPERTIES TIMEOUT 900)
endif()
