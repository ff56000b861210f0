# Regenerates src/unicode_tables.c into OUT and fails if it differs from the
# committed file (a hand edit, or a Python with another Unicode version:
# then regenerate and say so in the commit).
execute_process(COMMAND ${PYTHON} ${SOURCE}/src/gen_unicode_tables.py OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gen_unicode_tables.py failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${SOURCE}/src/unicode_tables.c RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "src/unicode_tables.c is not what src/gen_unicode_tables.py writes; see ${OUT}")
endif()
