package train

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"

	"github.com/megagit/megagit/local"
)

// checkpointName is the one checkpoint file kept in a checkpoint folder;
// each save replaces it atomically.
const checkpointName = "checkpoint.bin"

var checkpointMagic = [8]byte{'M', 'G', 'C', 'K', 'P', 'T', '1', '\n'}

// fingerprint identifies a training run: a checkpoint only resumes the run
// with the same pairs, vocabulary, warm start and hyperparameters.
func fingerprint(pairs []Pair, vocab int, cfg Config, init []float32) [32]byte {
	h := sha256.New()
	cfg.CheckpointDir, cfg.CheckpointEvery = "", 0
	fmt.Fprintf(h, "%d %+v %d\n", vocab, cfg, len(pairs))
	buf := make([]byte, 0, 4096)
	ids := func(t []int32) {
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(t)))
		for _, id := range t {
			buf = binary.LittleEndian.AppendUint32(buf, uint32(id))
		}
		if len(buf) > 3072 {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	for _, p := range pairs {
		ids(p.A)
		ids(p.B)
		buf = binary.LittleEndian.AppendUint32(buf, uint32(len(p.Neg)))
		for _, n := range p.Neg {
			ids(n)
		}
	}
	h.Write(buf)
	if init != nil {
		writeFloats(h, init)
	}
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// saveCheckpoint writes st to dir atomically (local.WriteAtomic), waiting
// for the disk: a resumed run trusts what it finds.
func saveCheckpoint(dir string, fp [32]byte, st *trainState) error {
	// A write error sticks in WriteAtomic's buffer and fails its flush.
	err := local.WriteAtomic(filepath.Join(dir, checkpointName), 0o644, true, func(w io.Writer) error {
		w.Write(checkpointMagic[:])
		w.Write(fp[:])
		for _, x := range []int{st.step, st.adamStep, len(st.table)} {
			binary.Write(w, binary.LittleEndian, uint64(x))
		}
		for _, s := range [][]float32{st.table, st.m, st.v} {
			writeFloats(w, s)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// loadCheckpoint fills st from dir's checkpoint. It reports false when there
// is none, and an error when there is one of a different run.
func loadCheckpoint(dir string, fp [32]byte, n int, st *trainState) (bool, error) {
	path := filepath.Join(dir, checkpointName)
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, fmt.Errorf("checkpoint: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	var magic [8]byte
	var got [32]byte
	var hdr [3]uint64
	if _, err := io.ReadFull(r, magic[:]); err != nil || magic != checkpointMagic {
		return false, fmt.Errorf("checkpoint %s: not a megagit checkpoint", path)
	}
	if _, err := io.ReadFull(r, got[:]); err != nil {
		return false, fmt.Errorf("checkpoint %s: %w", path, err)
	}
	if got != fp {
		return false, fmt.Errorf("checkpoint %s belongs to another run (other data or settings); remove it to start over", path)
	}
	if err := binary.Read(r, binary.LittleEndian, &hdr); err != nil || int(hdr[2]) != n {
		return false, fmt.Errorf("checkpoint %s: bad header", path)
	}
	st.step, st.adamStep = int(hdr[0]), int(hdr[1])
	st.table, st.m, st.v = make([]float32, n), make([]float32, n), make([]float32, n)
	for _, s := range [][]float32{st.table, st.m, st.v} {
		if err := readFloats(r, s); err != nil {
			return false, fmt.Errorf("checkpoint %s: %w", path, err)
		}
	}
	return true, nil
}

// writeFloats writes s as little-endian float32 in chunks.
func writeFloats(w io.Writer, s []float32) {
	buf := make([]byte, 0, 1<<16)
	for i, x := range s {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
		if len(buf) == cap(buf) || i == len(s)-1 {
			w.Write(buf)
			buf = buf[:0]
		}
	}
}

// readFloats fills s from little-endian float32.
func readFloats(r io.Reader, s []float32) error {
	buf := make([]byte, 1<<16)
	for len(s) > 0 {
		k := min(len(s), len(buf)/4)
		if _, err := io.ReadFull(r, buf[:4*k]); err != nil {
			return err
		}
		for i := range k {
			s[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		}
		s = s[k:]
	}
	return nil
}
