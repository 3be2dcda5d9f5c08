src/io/CMakeFiles/isocheck_io.dir/jsonl.cpp.o: \
 /work/main/src/io/jsonl.cpp /usr/include/stdc-predef.h \
 /work/main/src/io/jsonl.h /usr/include/c++/12/iosfwd \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++config.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/os_defines.h \
 /usr/include/features.h /usr/include/features-time64.h \
 /usr/include/x86_64-linux-gnu/bits/wordsize.h \
 /usr/include/x86_64-linux-gnu/bits/timesize.h \
 /usr/include/x86_64-linux-gnu/sys/cdefs.h \
 /usr/include/x86_64-linux-gnu/bits/long-double.h \
 /usr/include/x86_64-linux-gnu/gnu/stubs.h \
 /usr/include/x86_64-linux-gnu/gnu/stubs-64.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/cpu_defines.h \
 /usr/include/c++/12/pstl/pstl_config.h \
 /usr/include/c++/12/bits/stringfwd.h \
 /usr/include/c++/12/bits/memoryfwd.h /usr/include/c++/12/bits/postypes.h \
 /usr/include/c++/12/cwchar /usr/include/wchar.h \
 /usr/include/x86_64-linux-gnu/bits/libc-header-start.h \
 /usr/include/x86_64-linux-gnu/bits/floatn.h \
 /usr/include/x86_64-linux-gnu/bits/floatn-common.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdarg.h \
 /usr/include/x86_64-linux-gnu/bits/wchar.h \
 /usr/include/x86_64-linux-gnu/bits/types/wint_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/mbstate_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__mbstate_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/locale_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__locale_t.h \
 /usr/include/c++/12/string /usr/include/c++/12/bits/char_traits.h \
 /usr/include/c++/12/type_traits /usr/include/c++/12/compare \
 /usr/include/c++/12/concepts /usr/include/c++/12/bits/stl_construct.h \
 /usr/include/c++/12/new /usr/include/c++/12/bits/exception.h \
 /usr/include/c++/12/bits/move.h \
 /usr/include/c++/12/bits/stl_iterator_base_types.h \
 /usr/include/c++/12/bits/iterator_concepts.h \
 /usr/include/c++/12/bits/ptr_traits.h \
 /usr/include/c++/12/bits/ranges_cmp.h \
 /usr/include/c++/12/bits/stl_iterator_base_funcs.h \
 /usr/include/c++/12/bits/concept_check.h \
 /usr/include/c++/12/debug/assertions.h /usr/include/c++/12/cstdint \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/stdint.h /usr/include/stdint.h \
 /usr/include/x86_64-linux-gnu/bits/types.h \
 /usr/include/x86_64-linux-gnu/bits/typesizes.h \
 /usr/include/x86_64-linux-gnu/bits/time64.h \
 /usr/include/x86_64-linux-gnu/bits/stdint-intn.h \
 /usr/include/x86_64-linux-gnu/bits/stdint-uintn.h \
 /usr/include/c++/12/bits/allocator.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++allocator.h \
 /usr/include/c++/12/bits/new_allocator.h \
 /usr/include/c++/12/bits/functexcept.h \
 /usr/include/c++/12/bits/exception_defines.h \
 /usr/include/c++/12/bits/cpp_type_traits.h \
 /usr/include/c++/12/bits/localefwd.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++locale.h \
 /usr/include/c++/12/clocale /usr/include/locale.h \
 /usr/include/x86_64-linux-gnu/bits/locale.h /usr/include/c++/12/cctype \
 /usr/include/ctype.h /usr/include/x86_64-linux-gnu/bits/endian.h \
 /usr/include/x86_64-linux-gnu/bits/endianness.h \
 /usr/include/c++/12/bits/ostream_insert.h \
 /usr/include/c++/12/bits/cxxabi_forced.h \
 /usr/include/c++/12/bits/stl_iterator.h \
 /usr/include/c++/12/ext/type_traits.h \
 /usr/include/c++/12/bits/stl_function.h \
 /usr/include/c++/12/backward/binders.h \
 /usr/include/c++/12/ext/numeric_traits.h \
 /usr/include/c++/12/bits/stl_algobase.h \
 /usr/include/c++/12/bits/stl_pair.h /usr/include/c++/12/bits/utility.h \
 /usr/include/c++/12/debug/debug.h \
 /usr/include/c++/12/bits/predefined_ops.h \
 /usr/include/c++/12/bits/refwrap.h /usr/include/c++/12/bits/invoke.h \
 /usr/include/c++/12/bits/range_access.h \
 /usr/include/c++/12/initializer_list \
 /usr/include/c++/12/bits/basic_string.h \
 /usr/include/c++/12/ext/alloc_traits.h \
 /usr/include/c++/12/bits/alloc_traits.h /usr/include/c++/12/string_view \
 /usr/include/c++/12/bits/functional_hash.h \
 /usr/include/c++/12/bits/hash_bytes.h \
 /usr/include/c++/12/bits/ranges_base.h \
 /usr/include/c++/12/bits/max_size_type.h /usr/include/c++/12/numbers \
 /usr/include/c++/12/bits/string_view.tcc \
 /usr/include/c++/12/ext/string_conversions.h /usr/include/c++/12/cstdlib \
 /usr/include/stdlib.h /usr/include/x86_64-linux-gnu/bits/waitflags.h \
 /usr/include/x86_64-linux-gnu/bits/waitstatus.h \
 /usr/include/x86_64-linux-gnu/sys/types.h \
 /usr/include/x86_64-linux-gnu/bits/types/clock_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/clockid_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/time_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/timer_t.h /usr/include/endian.h \
 /usr/include/x86_64-linux-gnu/bits/byteswap.h \
 /usr/include/x86_64-linux-gnu/bits/uintn-identity.h \
 /usr/include/x86_64-linux-gnu/sys/select.h \
 /usr/include/x86_64-linux-gnu/bits/select.h \
 /usr/include/x86_64-linux-gnu/bits/types/sigset_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__sigset_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_timeval.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_timespec.h \
 /usr/include/x86_64-linux-gnu/bits/pthreadtypes.h \
 /usr/include/x86_64-linux-gnu/bits/thread-shared-types.h \
 /usr/include/x86_64-linux-gnu/bits/pthreadtypes-arch.h \
 /usr/include/x86_64-linux-gnu/bits/atomic_wide_counter.h \
 /usr/include/x86_64-linux-gnu/bits/struct_mutex.h \
 /usr/include/x86_64-linux-gnu/bits/struct_rwlock.h /usr/include/alloca.h \
 /usr/include/x86_64-linux-gnu/bits/stdlib-bsearch.h \
 /usr/include/x86_64-linux-gnu/bits/stdlib-float.h \
 /usr/include/c++/12/bits/std_abs.h /usr/include/c++/12/cstdio \
 /usr/include/stdio.h /usr/include/x86_64-linux-gnu/bits/types/__fpos_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/__fpos64_t.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_FILE.h \
 /usr/include/x86_64-linux-gnu/bits/types/cookie_io_functions_t.h \
 /usr/include/x86_64-linux-gnu/bits/stdio_lim.h \
 /usr/include/x86_64-linux-gnu/bits/stdio.h /usr/include/c++/12/cerrno \
 /usr/include/errno.h /usr/include/x86_64-linux-gnu/bits/errno.h \
 /usr/include/linux/errno.h /usr/include/x86_64-linux-gnu/asm/errno.h \
 /usr/include/asm-generic/errno.h /usr/include/asm-generic/errno-base.h \
 /usr/include/x86_64-linux-gnu/bits/types/error_t.h \
 /usr/include/c++/12/bits/charconv.h \
 /usr/include/c++/12/bits/basic_string.tcc /work/main/src/io/history.h \
 /usr/include/c++/12/limits /usr/include/c++/12/span \
 /usr/include/c++/12/array /usr/include/c++/12/cstddef \
 /usr/include/c++/12/unordered_map \
 /usr/include/c++/12/ext/aligned_buffer.h \
 /usr/include/c++/12/bits/hashtable.h \
 /usr/include/c++/12/bits/hashtable_policy.h /usr/include/c++/12/tuple \
 /usr/include/c++/12/bits/uses_allocator.h \
 /usr/include/c++/12/bits/enable_special_members.h \
 /usr/include/c++/12/bits/node_handle.h \
 /usr/include/c++/12/bits/unordered_map.h \
 /usr/include/c++/12/bits/erase_if.h /usr/include/c++/12/vector \
 /usr/include/c++/12/bits/stl_uninitialized.h \
 /usr/include/c++/12/bits/stl_vector.h \
 /usr/include/c++/12/bits/stl_bvector.h \
 /usr/include/c++/12/bits/vector.tcc /usr/include/simdjson.h \
 /usr/include/c++/12/cassert /usr/include/assert.h \
 /usr/include/c++/12/cfloat \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/float.h /usr/include/strings.h \
 /usr/include/c++/12/cstring /usr/include/string.h \
 /usr/include/c++/12/memory /usr/include/c++/12/bits/stl_tempbuf.h \
 /usr/include/c++/12/bits/stl_raw_storage_iter.h \
 /usr/include/c++/12/bits/align.h /usr/include/c++/12/bit \
 /usr/include/c++/12/bits/unique_ptr.h /usr/include/c++/12/ostream \
 /usr/include/c++/12/ios /usr/include/c++/12/exception \
 /usr/include/c++/12/bits/exception_ptr.h \
 /usr/include/c++/12/bits/cxxabi_init_exception.h \
 /usr/include/c++/12/typeinfo /usr/include/c++/12/bits/nested_exception.h \
 /usr/include/c++/12/bits/ios_base.h /usr/include/c++/12/ext/atomicity.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/gthr.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/gthr-default.h \
 /usr/include/pthread.h /usr/include/sched.h \
 /usr/include/x86_64-linux-gnu/bits/sched.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_sched_param.h \
 /usr/include/x86_64-linux-gnu/bits/cpu-set.h /usr/include/time.h \
 /usr/include/x86_64-linux-gnu/bits/time.h \
 /usr/include/x86_64-linux-gnu/bits/timex.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_tm.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct_itimerspec.h \
 /usr/include/x86_64-linux-gnu/bits/setjmp.h \
 /usr/include/x86_64-linux-gnu/bits/types/struct___jmp_buf_tag.h \
 /usr/include/x86_64-linux-gnu/bits/pthread_stack_min-dynamic.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/atomic_word.h \
 /usr/include/x86_64-linux-gnu/sys/single_threaded.h \
 /usr/include/c++/12/bits/locale_classes.h \
 /usr/include/c++/12/bits/locale_classes.tcc \
 /usr/include/c++/12/system_error \
 /usr/include/x86_64-linux-gnu/c++/12/bits/error_constants.h \
 /usr/include/c++/12/stdexcept /usr/include/c++/12/streambuf \
 /usr/include/c++/12/bits/streambuf.tcc \
 /usr/include/c++/12/bits/basic_ios.h \
 /usr/include/c++/12/bits/locale_facets.h /usr/include/c++/12/cwctype \
 /usr/include/wctype.h /usr/include/x86_64-linux-gnu/bits/wctype-wchar.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/ctype_base.h \
 /usr/include/c++/12/bits/streambuf_iterator.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/ctype_inline.h \
 /usr/include/c++/12/bits/locale_facets.tcc \
 /usr/include/c++/12/bits/basic_ios.tcc \
 /usr/include/c++/12/bits/ostream.tcc \
 /usr/include/c++/12/bits/shared_ptr.h \
 /usr/include/c++/12/bits/shared_ptr_base.h \
 /usr/include/c++/12/bits/allocated_ptr.h \
 /usr/include/c++/12/ext/concurrence.h \
 /usr/include/c++/12/bits/shared_ptr_atomic.h \
 /usr/include/c++/12/bits/atomic_base.h \
 /usr/include/c++/12/bits/atomic_lockfree_defines.h \
 /usr/include/c++/12/bits/atomic_wait.h /usr/include/c++/12/climits \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/limits.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/syslimits.h \
 /usr/include/limits.h /usr/include/x86_64-linux-gnu/bits/posix1_lim.h \
 /usr/include/x86_64-linux-gnu/bits/local_lim.h \
 /usr/include/linux/limits.h \
 /usr/include/x86_64-linux-gnu/bits/posix2_lim.h \
 /usr/include/x86_64-linux-gnu/bits/xopen_lim.h \
 /usr/include/x86_64-linux-gnu/bits/uio_lim.h /usr/include/unistd.h \
 /usr/include/x86_64-linux-gnu/bits/posix_opt.h \
 /usr/include/x86_64-linux-gnu/bits/environments.h \
 /usr/include/x86_64-linux-gnu/bits/confname.h \
 /usr/include/x86_64-linux-gnu/bits/getopt_posix.h \
 /usr/include/x86_64-linux-gnu/bits/getopt_core.h \
 /usr/include/x86_64-linux-gnu/bits/unistd_ext.h \
 /usr/include/linux/close_range.h /usr/include/syscall.h \
 /usr/include/x86_64-linux-gnu/sys/syscall.h \
 /usr/include/x86_64-linux-gnu/asm/unistd.h \
 /usr/include/x86_64-linux-gnu/asm/unistd_64.h \
 /usr/include/x86_64-linux-gnu/bits/syscall.h \
 /usr/include/c++/12/bits/std_mutex.h \
 /usr/include/c++/12/backward/auto_ptr.h \
 /usr/include/c++/12/bits/ranges_uninitialized.h \
 /usr/include/c++/12/bits/ranges_algobase.h \
 /usr/include/c++/12/bits/uses_allocator_args.h \
 /usr/include/c++/12/pstl/glue_memory_defs.h \
 /usr/include/c++/12/pstl/execution_defs.h /usr/include/c++/12/sstream \
 /usr/include/c++/12/istream /usr/include/c++/12/bits/istream.tcc \
 /usr/include/c++/12/bits/sstream.tcc /usr/include/c++/12/atomic \
 /usr/include/c++/12/utility /usr/include/c++/12/bits/stl_relops.h \
 /usr/include/c++/12/ranges /usr/include/c++/12/iterator \
 /usr/include/c++/12/bits/stream_iterator.h /usr/include/c++/12/optional \
 /usr/include/c++/12/bits/ranges_util.h /usr/include/c++/12/thread \
 /usr/include/c++/12/stop_token /usr/include/c++/12/bits/std_thread.h \
 /usr/include/c++/12/semaphore /usr/include/c++/12/bits/semaphore_base.h \
 /usr/include/c++/12/bits/chrono.h /usr/include/c++/12/ratio \
 /usr/include/c++/12/ctime /usr/include/c++/12/bits/parse_numbers.h \
 /usr/include/c++/12/bits/atomic_timed_wait.h \
 /usr/include/c++/12/bits/this_thread_sleep.h \
 /usr/include/x86_64-linux-gnu/sys/time.h /usr/include/semaphore.h \
 /usr/include/x86_64-linux-gnu/bits/semaphore.h /usr/include/c++/12/mutex \
 /usr/include/c++/12/bits/unique_lock.h \
 /usr/include/c++/12/condition_variable /usr/include/c++/12/iomanip \
 /usr/include/c++/12/locale \
 /usr/include/c++/12/bits/locale_facets_nonio.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/time_members.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/messages_members.h \
 /usr/include/libintl.h /usr/include/c++/12/bits/codecvt.h \
 /usr/include/c++/12/bits/locale_facets_nonio.tcc \
 /usr/include/c++/12/bits/locale_conv.h \
 /usr/include/c++/12/bits/quoted_string.h /usr/include/c++/12/algorithm \
 /usr/include/c++/12/bits/stl_algo.h \
 /usr/include/c++/12/bits/algorithmfwd.h \
 /usr/include/c++/12/bits/stl_heap.h \
 /usr/include/c++/12/bits/uniform_int_dist.h \
 /usr/include/c++/12/bits/ranges_algo.h \
 /usr/include/c++/12/pstl/glue_algorithm_defs.h \
 /usr/include/c++/12/cinttypes /usr/include/inttypes.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/x86intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/x86gprintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/ia32intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/adxintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/bmiintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/bmi2intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/cetintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/cldemoteintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/clflushoptintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/clwbintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/clzerointrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/enqcmdintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/fxsrintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/lzcntintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/lwpintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/movdirintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/mwaitintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/mwaitxintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/pconfigintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/popcntintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/pkuintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/rdseedintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/rtmintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/serializeintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/sgxintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/tbmintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/tsxldtrkintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/uintrintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/waitpkgintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/wbnoinvdintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/xsaveintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/xsavecintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/xsaveoptintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/xsavesintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/xtestintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/hresetintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/immintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/mmintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/xmmintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/mm_malloc.h \
 /usr/include/c++/12/stdlib.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/emmintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/pmmintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/tmmintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/smmintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/wmmintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avxintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avxvnniintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx2intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512fintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512erintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512pfintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512cdintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vlintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512bwintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512dqintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vlbwintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vldqintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512ifmaintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512ifmavlintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vbmiintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vbmivlintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx5124fmapsintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx5124vnniwintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vpopcntdqintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vbmi2intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vbmi2vlintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vnniintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vnnivlintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vpopcntdqvlintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512bitalgintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vp2intersectintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512vp2intersectvlintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512fp16intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512fp16vlintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/shaintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/fmaintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/f16cintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/gfniintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/vaesintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/vpclmulqdqintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512bf16vlintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/avx512bf16intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/amxtileintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/amxint8intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/amxbf16intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/prfchwintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/keylockerintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/mm3dnow.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/fma4intrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/ammintrin.h \
 /usr/lib/gcc/x86_64-linux-gnu/12/include/xopintrin.h \
 /usr/include/c++/12/charconv /usr/include/c++/12/fstream \
 /usr/include/x86_64-linux-gnu/c++/12/bits/basic_file.h \
 /usr/include/x86_64-linux-gnu/c++/12/bits/c++io.h \
 /usr/include/c++/12/bits/fstream.tcc /usr/include/c++/12/unordered_set \
 /usr/include/c++/12/bits/unordered_set.h /work/main/src/io/errors.h
