# Compiles SRC with FLAGS and prints the compiler's diagnostics; the calling test matches them.
# Fails (prints SUPERSTEP-UNEXPECTED-SUCCESS) when the file compiles.
execute_process(COMMAND ${CXX} ${FLAGS} ${SRC} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 0)
  message("SUPERSTEP-UNEXPECTED-SUCCESS")
endif()
