#!/bin/bash
# vm-suite: by name only.  The DKMS build alone takes about 7 minutes
# under TCG (close to the 600 s per-test timeout), and the last check
# fails: after dpkg --purge, DKMS's orfs.ko is still in the VM's
# /lib/modules/<k>/updates/dkms/ (tests/pkg/install.sh's purge on the
# host passes; the cause in the VM is not known yet).  Run it with
# tests/vm/run.sh t-packages after make deb.
# The Debian packages (make deb: build/deb/) installed as an admin would,
# with dpkg -i in the VM, whose root is an overlay over the host's "/" with
# its writes in guest RAM: nothing reaches the host.  Then a mount with what
# they installed only: orfs.ko as DKMS built it in the VM for the running
# kernel (orfs-dkms's postinst), /usr/sbin/orfsd and /etc/orfsd.conf
# (orfsd), /sbin/mount.orfs through mount(8) (orfs-client).  Checks that
# - DKMS built and installed the production orfs.ko for this kernel, and
#   modprobe finds it (depmod);
# - orfsd's service is not enabled, and the packaged /etc/orfsd.conf alone
#   starts no server (it sets no export);
# - with export set in the packaged config file, a mount through
#   mount.orfs works: data written on the client is on the server's disk;
# - dpkg --purge removes the module from DKMS and /lib/modules, and the
#   conffile.
# It does not prove: systemd starting the unit (the VM runs no systemd), a
# kernel upgrade (tests/pkg/dkms.sh does, on the host), or installation on
# a machine other than this one's root (the host's packages are all there).
. "$(dirname "$0")/lib.sh"
set -e
debs=$ORFS_TOP/build/deb
exp=$ORFS_WORK/export
mnt=$ORFS_WORK/mnt
k=$(uname -r)

shopt -s nullglob
pkgs=("$debs"/orfs-dkms_*_all.deb "$debs"/orfsd_*_amd64.deb "$debs"/orfs-client_*_amd64.deb)
[ ${#pkgs[@]} -eq 3 ] || fail "no packages in $debs: run make deb first (found: ${pkgs[*]})"
# Refuse anywhere but on the VM's RAM-backed root.
[ "$(awk '$2 == "/" { print $3 }' /proc/mounts | tail -n 1)" = overlay ] ||
	fail "/ is not the VM's overlay: refusing to install packages"
if dpkg-query -W -f='${Status}' orfs-dkms 2>/dev/null | grep -q installed; then
	fail "orfs-dkms is installed on the host already"
fi

mkdir -p "$ORFS_WORK"
# dkms uses bash's <(...), which needs /dev/fd; the VM's devtmpfs lacks
# the link udev makes on a real machine.
[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# A machine with the one kernel the VM runs: orfs-dkms's postinst builds
# for the running kernel and for the newest of /boot/config-*, and the
# host's /boot has 6.12 too, whose build (tests/pkg/dkms.sh's part) would
# double the time under TCG.
mkdir -p "$ORFS_WORK/boot"
cp "/boot/config-$k" "$ORFS_WORK/boot/"
mount --bind "$ORFS_WORK/boot" /boot
trap 'umount /boot 2>/dev/null' EXIT
start=$(date +%s)
DEBIAN_FRONTEND=noninteractive dpkg -i "${pkgs[@]}" >"$ORFS_WORK/dpkg.log" 2>&1 || { cat "$ORFS_WORK/dpkg.log"; fail "dpkg -i"; }
note "dpkg -i with the DKMS build: $(( $(date +%s) - start )) s"
for p in orfs-dkms orfsd orfs-client; do
	[ "$(dpkg-query -W -f='${Status}' "$p")" = "install ok installed" ] || fail "$p is not installed"
done

# orfs.ko from DKMS, for this kernel, the production build.
ko=$(modinfo -n orfs) || fail "modprobe does not know orfs"
case $ko in
"/lib/modules/$k/updates/dkms/orfs.ko"*) ;;
*) fail "modinfo finds $ko, not DKMS's module" ;;
esac
dkms status orfs -k "$k" | grep -q ': installed' || fail "dkms status: $(dkms status orfs)"
[ "$(modinfo -F vermagic "$ko" | awk '{ print $1 }')" = "$k" ] || fail "vermagic of $ko"
if modinfo -F parm "$ko" | grep -qE '^(ogr|direct_inline|direct_push):'; then
	fail "$ko has benchmark-only parts"
fi

# Installed, but neither enabled nor able to serve without configuration.
[ -f /lib/systemd/system/orfsd.service ] || fail "no orfsd.service"
[ ! -e /etc/systemd/system/multi-user.target.wants/orfsd.service ] || fail "orfsd.service is enabled"
grep -qx '/etc/orfsd.conf' /var/lib/dpkg/info/orfsd.conffiles || fail "/etc/orfsd.conf is not a conffile"
expect_fail "export DIR is required" /usr/sbin/orfsd --foreground
[ -x /sbin/mount.orfs ] && [ -s /usr/share/man/man8/mount.orfs.8.gz ] &&
	[ -s /usr/share/man/man8/orfsd.8.gz ] && [ -s /usr/share/man/man5/orfsd.conf.5.gz ] ||
	fail "mount.orfs or a man page is missing"

# The admin's configuration: export and listen set in the packaged file.
mkdir -p "$exp" "$mnt"
echo "from the server" >"$exp/hello"
printf 'export = %s\nlisten = %s\nport = %s\nroot-squash = no\n' \
	"$exp" "$ORFS_SRV_ADDR" "$ORFS_PORT" >>/etc/orfsd.conf
modprobe rdma_cm
modprobe orfs || fail "modprobe orfs"
# The tree's orfs.ko (ORFS_BENCH=y) has fs/bench.c's parameters, DKMS's not.
grep -q '^orfs ' /proc/modules || fail "orfs is not loaded"
[ ! -e /sys/module/orfs/parameters/direct_push ] || fail "the loaded orfs is not DKMS's"
/usr/sbin/orfsd --foreground >>"$ORFS_WORK/orfsd.log" 2>&1 </dev/null &
ORFSD_PID=$!
for i in $(seq 1 100); do
	rdma resource show cm_id 2>/dev/null | grep -q "state LISTEN.*src-addr $ORFS_SRV_ADDR:$ORFS_PORT" && break
	kill -0 "$ORFSD_PID" 2>/dev/null || { cat "$ORFS_WORK/orfsd.log"; fail "orfsd exited"; }
	[ "$i" -lt 100 ] || { cat "$ORFS_WORK/orfsd.log"; fail "orfsd does not listen"; }
	sleep 0.1
done
# mount(8) runs /sbin/mount.orfs, which resolves the name.
echo "$ORFS_SRV_ADDR orfs-pkg-server" >>/etc/hosts
mount -t orfs orfs-pkg-server:/ "$mnt" || fail "mount -t orfs orfs-pkg-server:/"
grep -q " $mnt orfs .*addr=$ORFS_SRV_ADDR" /proc/mounts || fail "not in /proc/mounts"
[ "$(cat "$mnt/hello")" = "from the server" ] || fail "read through the mount"
head -c 300000 /dev/urandom >"$ORFS_WORK/data"
cp "$ORFS_WORK/data" "$mnt/data"
sync
cmp "$ORFS_WORK/data" "$exp/data" || fail "written data differs on the server"
umount "$mnt"
orfs_server_stop
rmmod orfs

# Removal: the module leaves DKMS and /lib/modules, purge takes the conffile.
DEBIAN_FRONTEND=noninteractive dpkg --purge orfs-client orfsd orfs-dkms >"$ORFS_WORK/dpkg.log" 2>&1 ||
	{ cat "$ORFS_WORK/dpkg.log"; fail "dpkg --purge"; }
[ -z "$(ls /lib/modules/"$k"/updates/dkms/orfs.ko* 2>/dev/null)" ] || fail "orfs.ko left behind"
[ -z "$(dkms status orfs)" ] || fail "dkms still has orfs: $(dkms status orfs)"
[ ! -e /etc/orfsd.conf ] || fail "/etc/orfsd.conf left after purge"
exit 0
