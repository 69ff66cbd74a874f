package cli

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// fullDiskSize is the tmpfs fulldisk mounts: small, so filling it costs
// nothing.
const fullDiskSize = 4 << 20

// canMountTmpfs is the [fulldisk] condition: this process may mount a
// tmpfs (root, or CAP_SYS_ADMIN), tried once on a folder of its own.
var canMountTmpfs = sync.OnceValues(func() (bool, error) {
	dir, err := os.MkdirTemp("", "megagit-tmpfs-probe-")
	if err != nil {
		return false, err
	}
	defer os.Remove(dir)
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k"); err != nil {
		return false, nil
	}
	return true, syscall.Unmount(dir, 0)
})

// cmdFullDisk is `fulldisk DIR FREE`: a tmpfs of 4 MiB mounted on DIR
// (what DIR held is hidden until the script ends) and filled with one file
// until FREE bytes are left: a real full filesystem, whose writes fail
// with ENOSPC. Scripts guard it with [fulldisk].
func cmdFullDisk(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: fulldisk DIR FREE")
	}
	dir := ts.MkAbs(args[0])
	free, err := strconv.ParseInt(args[1], 10, 64)
	ts.Check(err)
	ts.Check(os.MkdirAll(dir, 0o755))
	ts.Check(syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%d,mode=0755", fullDiskSize)))
	ts.Defer(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	var st syscall.Statfs_t
	ts.Check(syscall.Statfs(dir, &st))
	avail := int64(st.Bavail) * st.Bsize
	if avail <= free {
		ts.Fatalf("fulldisk: %d bytes free on the tmpfs, want more than %d", avail, free)
	}
	ts.Check(os.WriteFile(dir+"/.filler", make([]byte, avail-free), 0o644))
	ts.Check(syscall.Statfs(dir, &st))
	ts.Logf("fulldisk: %s is a tmpfs with %d bytes free", dir, int64(st.Bavail)*st.Bsize)
}
