# engine/dist: rendezvous, the parallel mesh and its process groups, data-parallel and ZeRO-1/2
# gradients, sequence and tensor parallelism and the `launch` supervisor. Sources join the engine
# library.
target_sources(tuneframe_engine PRIVATE
    ${CMAKE_CURRENT_LIST_DIR}/all_reduce_tensor_parallel.cpp
    ${CMAKE_CURRENT_LIST_DIR}/all_to_all_token_exchange.cpp
    ${CMAKE_CURRENT_LIST_DIR}/communicator.cpp
    ${CMAKE_CURRENT_LIST_DIR}/cuda_visible_devices.cpp
    ${CMAKE_CURRENT_LIST_DIR}/distributed_context.cpp
    ${CMAKE_CURRENT_LIST_DIR}/launch_supervisor.cpp
    ${CMAKE_CURRENT_LIST_DIR}/parallel_mesh.cpp
    ${CMAKE_CURRENT_LIST_DIR}/rendezvous.cpp
    ${CMAKE_CURRENT_LIST_DIR}/rendezvous_environment.cpp
    ${CMAKE_CURRENT_LIST_DIR}/stage_tensors.cpp
    ${CMAKE_CURRENT_LIST_DIR}/tensor_parallel_shards.cpp
    # Data-parallel and ZeRO gradients: buckets, their all-reduce, the sharded reducer.
    ${CMAKE_CURRENT_LIST_DIR}/gradients/bucketed_all_reduce.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gradients/gradient_buckets.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gradients/zero_gradient_reducer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/gradients/zero_sharding.cpp
)
# LibTorch's Gloo process group needs Gloo's headers (Debian: libgloo-dev). Without them CPU
# ranks cannot talk, and the engine says so when asked to.
find_path(TUNEFRAME_GLOO_INCLUDE_DIR gloo/context.h)
find_library(TUNEFRAME_GLOO_LIBRARY gloo)
if(TUNEFRAME_GLOO_INCLUDE_DIR)
    target_include_directories(tuneframe_engine PRIVATE ${TUNEFRAME_GLOO_INCLUDE_DIR})
    target_compile_definitions(tuneframe_engine PRIVATE TUNEFRAME_HAVE_GLOO=1 USE_C10D_GLOO=1)
    if(TUNEFRAME_GLOO_LIBRARY)
        target_link_libraries(tuneframe_engine PUBLIC ${TUNEFRAME_GLOO_LIBRARY})
    endif()
else()
    message(STATUS "Gloo headers not found: multi-rank CPU training is off (install libgloo-dev)")
endif()
