# pdt_add_vm_test(<name>
#     [SCRIPT <guest.sh>]        guest script sourced after vm/guest/lib.sh (uses pdt_run, ...)
#     [COMMANDS <cmd>...]        commands run in the guest, one pdt_run step each
#     [TARGETS <target>...]      executables copied into the guest (on PATH there) with their libs
#     [FILES <src:dest>...]      extra files for the guest
#     [EXPECT <regex>...]        lines the serial log must contain (grep -E)
#     [ENV <VAR=VALUE>...]       exported to the guest script
#     [FILES_OUT <dir>]          where files the guest prints with pdt_file/pdt_capture go
#     [TIMEOUT <seconds>]        the guest's time limit (default 600)
#     [QEMU_ARGS <arg>...]       extra QEMU arguments (devices)
#     [NO_IOMMU]                 no virtual IOMMU; vfio built with CONFIG_VFIO_NOIOMMU (cached) and
#                                loaded with enable_unsafe_noiommu_mode=1; skipped (77) without
#                                Debian's linux-source
#     [UDEV])                    Debian's udevd and udevadm in the guest (the package udev on the
#                                host; the guest script starts udevd: pdt_start_udevd)
# Registers a CTest test (label vm) that builds an initramfs from the freshly built targets,
# boots the Debian kernel under QEMU and judges the serial log (vm/check_log.sh). Every vm
# test takes the resource lock "qemu_guest", so guests never run two at a time.
# Include this file from any CMakeLists.txt: include(${PROJECT_SOURCE_DIR}/vm/pdt_vm_test.cmake)
include_guard(GLOBAL)
# The harness folder for every includer (a cache entry: include_guard skips this file after the
# first include, so a plain variable would exist only in the first includer's scope).
set(PDT_VM_DIR ${CMAKE_CURRENT_LIST_DIR} CACHE INTERNAL "vm/ test harness folder")

# _pdt_vm_flag_each(<args> <flag> <list>): appends "<flag> <item>" to the list <args> for each
# item of the list variable <list>.
function(_pdt_vm_flag_each out flag list)
  set(appended "${${out}}")
  foreach(item IN LISTS ${list})
    list(APPEND appended ${flag} ${item})
  endforeach()
  set(${out} "${appended}" PARENT_SCOPE)
endfunction()

function(pdt_add_vm_test name)
  cmake_parse_arguments(V "UDEV;NO_IOMMU" "SCRIPT;TIMEOUT;FILES_OUT"
                        "COMMANDS;TARGETS;FILES;EXPECT;ENV;QEMU_ARGS" ${ARGN})
  if(NOT V_TIMEOUT)
    set(V_TIMEOUT 600)
  endif()
  set(args --name ${name} --workdir ${CMAKE_BINARY_DIR}/vm-tests --timeout ${V_TIMEOUT})
  if(V_SCRIPT)
    get_filename_component(script ${V_SCRIPT} ABSOLUTE)
    list(APPEND args --script ${script})
  endif()
  _pdt_vm_flag_each(args --cmd V_COMMANDS)
  foreach(t IN LISTS V_TARGETS)
    list(APPEND args --bin $<TARGET_FILE:${t}>)
  endforeach()
  _pdt_vm_flag_each(args --file V_FILES)
  _pdt_vm_flag_each(args --expect V_EXPECT)
  _pdt_vm_flag_each(args --env V_ENV)
  if(V_FILES_OUT)
    list(APPEND args --files-out ${V_FILES_OUT})
  endif()
  if(V_UDEV)
    list(APPEND args --udev)
  endif()
  if(V_NO_IOMMU)
    list(APPEND args --no-iommu)
  endif()
  if(V_QEMU_ARGS)
    list(APPEND args -- ${V_QEMU_ARGS})
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/run_vm_test.sh ${args})
  # Room for the kernel download and initramfs build on top of the guest's own limit.
  math(EXPR ctest_timeout "${V_TIMEOUT} + 120")
  set_tests_properties(${name} PROPERTIES LABELS vm TIMEOUT ${ctest_timeout}
                       RESOURCE_LOCK qemu_guest SKIP_RETURN_CODE 77)
endfunction()
