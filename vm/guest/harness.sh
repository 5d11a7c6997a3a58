# Guest script of the vm_harness test: shows the VFIO nodes and captures the config space of
# every PCIe root port and the devices below them (fixtures for config-space decoder tests).
pdt_run ls-dev-vfio ls -l /dev/vfio
pdt_capture lspci-tv lspci -tv
pdt_capture lspci-nn lspci -nn
for port in $(lspci -n -d 1b36:000c | cut -d' ' -f1); do
  bdf=0000:$port
  tag=$(echo "$port" | tr ':.' '--')
  pdt_capture "rootport-$tag.lspci-xxxx" lspci -xxxx -s "$port"
  pdt_capture "rootport-$tag.lspci-vvv" lspci -vvv -s "$port"
  for child in /sys/bus/pci/devices/$bdf/0000:*; do
    [ -e "$child/config" ] || continue
    c=${child##*/}
    ctag=$(echo "${c#0000:}" | tr ':.' '--')
    pdt_capture "device-$ctag.lspci-xxxx" lspci -xxxx -s "$c"
    pdt_capture "device-$ctag.lspci-vvv" lspci -vvv -s "$c"
  done
done
