# engine/train/bench: the bench command's timed steps, per-phase clocks and Kineto traces.
# Included from engine/CMakeLists.txt.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/kineto_trace.cpp
    ${CMAKE_CURRENT_LIST_DIR}/step_phase_clock.cpp
    ${CMAKE_CURRENT_LIST_DIR}/training_bench.cpp
)
