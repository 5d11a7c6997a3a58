
# The designs directory: $PDT_DESIGNS_DIR, else share/pcie-dma-toolkit/designs beside the bin/
# the tool runs from, else /usr/share/pcie-dma-toolkit/designs.
_pcie_dma_toolkit_designs_dir() {
    if [[ -n ${PDT_DESIGNS_DIR:-} ]]; then
        echo "$PDT_DESIGNS_DIR"
        return
    fi
    local tool
    tool=$(type -P "$1" 2>/dev/null)
    if [[ $tool == */bin/* && -d ${tool%/bin/*}/share/pcie-dma-toolkit/designs ]]; then
        echo "${tool%/bin/*}/share/pcie-dma-toolkit/designs"
    else
        echo /usr/share/pcie-dma-toolkit/designs
    fi
}

# The design names --sim_design takes: the built-in ones (a file NAME.json each in the designs
# directory) and the "name" fields of the --design_file files already on the command line.
_pcie_dma_toolkit_design_names() {
    local dir file i
    dir=$(_pcie_dma_toolkit_designs_dir "$1")
    for file in "$dir"/*.json; do
        [[ -e $file ]] || continue
        file=${file##*/}
        echo "${file%.json}"
    done
    for ((i = 1; i < ${#COMP_WORDS[@]} - 1; i++)); do
        if [[ ${COMP_WORDS[i]} == --design_file ]]; then
            file=${COMP_WORDS[i + 1]}
            [[ $file == = ]] && file=${COMP_WORDS[i + 2]:-}
            file=${file/#\~/$HOME}
            [[ -r $file ]] && grep -o '"name"[[:space:]]*:[[:space:]]*"[^"]*"' "$file" | sed 's/.*"\([^"]*\)"$/\1/'
        fi
    done
}

# The values of an option, one a line; nothing for free text (numbers, durations).
_pcie_dma_toolkit_values() {
    local tool=$1 option=$2
    case $option in
        --sim_design) _pcie_dma_toolkit_design_names "$tool" ;;
        --design_file) compgen -f -X '!*.json' -- "$cur"; compgen -d -- "$cur" ;;
        --device | -d | --stream_device | --h2c_stream_device | --c2h_stream_device | --device_routing)
            local path
            for path in /sys/bus/pci/devices/*; do [[ -e $path ]] && echo "${path##*/}"; done ;;
        --buffer_allocation) printf '%s\n' heap shared_memory huge_pages ;;
        --engine_mode) printf '%s\n' auto credits stop_list ;;
        --completion) printf '%s\n' auto poll_writeback completed_count status interrupt ;;
        --access) printf '%s\n' libpci pciaccess vfio sim dump: ;;
        --allow_group) compgen -g ;;
        --file) compgen -f -- "$cur" ;;
        -f) [[ ${tool##*/} == dma_to_device || ${tool##*/} == dma_from_device ]] && compgen -f -- "$cur" ;;
        --width) [[ ${tool##*/} == reg_rw ]] && printf '%s\n' 8 16 32 64 ;;
    esac
}

_pcie_dma_toolkit() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]:-} option tool=${COMP_WORDS[0]}
    local options words=()
    options=$(_pcie_dma_toolkit_options "$tool")
    # "--option=value" splits into "--option", "=", "value" (COMP_WORDBREAKS holds "=").
    if [[ $cur == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        cur=""
    elif [[ $prev == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi
    for option in $options; do
        if [[ $option == *= && $prev == "${option%=}" ]]; then
            [[ $prev == --design_file || $prev == --file || ($prev == -f && ${tool##*/} == dma_*_device) ]] &&
                compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -W "$(_pcie_dma_toolkit_values "$tool" "${option%=}" | tr '\n' ' ')" -- "$cur")
            return 0
        fi
    done
    for option in $options; do
        [[ $option == --* ]] && words+=("${option%=}")
    done
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "${words[*]}" -- "$cur")
    elif [[ ${tool##*/} == @(@(dump_pci_info|pcie_set_speed)?(_pciutils|_libpciaccess|_vfio)|vfio_access_keep_open) ]]; then
        # Their arguments are PCI locations (fpga_sio's names of the first two as well).
        mapfile -t COMPREPLY < <(compgen -W "$(_pcie_dma_toolkit_values "$tool" --device | tr '\n' ' ')" -- "$cur")
    elif [[ -z $cur ]]; then
        mapfile -t COMPREPLY < <(compgen -W "${words[*]}" -- "$cur")
    fi
}
