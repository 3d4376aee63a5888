package index

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-git/go-git/v5/plumbing/filemode"

	"github.com/ctxtrim/ctxtrim/internal/badutf8"
)

// This file turns one candidate into a File or a Skip: its mode, class,
// size, blob hash, status and cached or fresh analysis.

// process turns one candidate into a File or a Skip, in steps: open the
// file (following a symbolic link), classify it by path, hash it (blob and
// status), analyze it (cached or fresh), classify it by content. Only a
// cancelled context is an error.
func (w *worker) process(ctx context.Context, c candidate) (result, error) {
	f := &pending{
		c:       c,
		abs:     filepath.Join(w.b.root, filepath.FromSlash(c.path)),
		symlink: c.mode&fs.ModeSymlink != 0,
	}
	if s := f.open(w.b.root); s != nil {
		return result{skip: s}, nil
	}
	if s := w.b.classifyByPath(f); s != nil {
		return result{skip: s}, nil
	}
	if s := w.hash(f); s != nil {
		return result{skip: s}, nil
	}
	key, ce, s, err := w.analysis(ctx, f)
	if err != nil || s != nil {
		return result{skip: s}, err
	}
	return f.classifyByContent(key, ce, w.b.opts.All), nil
}

// pending is one candidate on its way through process, with what the
// steps so far have found.
type pending struct {
	c        candidate
	abs      string      // its path in the work tree
	symlink  bool        // abs is a symbolic link
	readPath string      // where its content is read: abs, or the link's target
	fi       fs.FileInfo // of readPath
	class    Class
	content  []byte // its content once read (in the worker's buffer), else nil
	blob     string
	status   Status
}

// skip is the candidate's Skip for reason, with detail.
func (f *pending) skip(reason, detail string) *Skip {
	return &Skip{Path: f.c.path, Reason: reason, Detail: detail}
}

// open finds the regular file the candidate names: itself, or the target
// of a symbolic link that stays inside the work tree at root.
func (f *pending) open(root string) *Skip {
	f.readPath = f.abs
	if f.symlink {
		if s := f.follow(root); s != nil {
			return s
		}
	} else {
		fi, err := os.Lstat(f.abs)
		if err != nil {
			return f.skip(SkipUnreadable, err.Error())
		}
		f.fi = fi
	}
	if !f.fi.Mode().IsRegular() {
		return f.skip(SkipSpecial, f.fi.Mode().Type().String())
	}
	return nil
}

// follow resolves the symbolic link at f.abs to a file inside root.
func (f *pending) follow(root string) *Skip {
	target, err := filepath.EvalSymlinks(f.abs)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return f.skip(SkipSymlinkBroken, readlink(f.abs))
		}
		if strings.Contains(err.Error(), "too many links") {
			return f.skip(SkipSymlinkLoop, readlink(f.abs))
		}
		return f.skip(SkipUnreadable, err.Error())
	}
	if rel, err := filepath.Rel(root, target); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return f.skip(SkipSymlinkOutside, readlink(f.abs))
	}
	f.readPath = target
	fi, err := os.Stat(target)
	if err != nil {
		return f.skip(SkipUnreadable, err.Error())
	}
	f.fi = fi
	if fi.IsDir() {
		return f.skip(SkipSymlinkDir, readlink(f.abs))
	}
	return nil
}

// classifyByPath gives f its class by path and attributes, and skips it
// by class (unless Options.All), by size or as a large fixture.
func (b *builder) classifyByPath(f *pending) *Skip {
	c := f.c
	f.class = classifyPath(c.path, c.ling)
	if c.vendored && c.ling.state[lingVendored] != attrFalse {
		f.class = Vendored
	}
	if r := classSkip(f.class); r != "" && !b.opts.All {
		return f.skip(r, c.ling.detail(f.class))
	}
	size := f.fi.Size()
	if b.maxSize > 0 && size > b.maxSize {
		// A large binary (a logo, an archive) is binary first: only a
		// text file over the limit is worth telling the user about.
		if binaryHead(f.readPath) {
			return f.skip(SkipBinary, "")
		}
		return f.skip(SkipTooLarge, fmt.Sprintf("%d bytes > %d", size, b.maxSize))
	}
	if size > maxFixtureBytes && f.class == Test && isFixturePath(c.path) {
		f.class = Fixture
		if !b.opts.All {
			return f.skip(SkipFixture, fmt.Sprintf("%d bytes > %d", size, maxFixtureBytes))
		}
	}
	return nil
}

// hash gives f its blob hash and status: a tracked file whose stat data
// match its index entry keeps the entry's hash unread; others are read
// (into f.content) and hashed.
func (w *worker) hash(f *pending) *Skip {
	b := w.b
	c, e := f.c, f.c.entry
	switch {
	case b.repo == nil:
	case e == nil:
		f.status |= Untracked
	case b.staged[c.path]:
		f.status |= Staged
	}
	if b.statClean(f) {
		f.blob = e.Hash.String()
		return nil
	}
	content, err := w.read(f.readPath, f.fi.Size())
	if err != nil {
		return f.skip(SkipUnreadable, err.Error())
	}
	f.content = content
	f.blob = hashBlob(content)
	if e != nil {
		same := f.blob == e.Hash.String()
		if f.symlink && e.Mode == filemode.Symlink {
			t, _ := os.Readlink(f.abs)
			same = hashBlob([]byte(t)) == e.Hash.String()
		}
		if !same || e.IntentToAdd || b.conflicted[c.path] {
			f.status |= Modified
		}
	}
	return nil
}

// statClean reports whether f is a tracked regular file whose size and
// mtime match its index entry, and not racily clean or conflicted: then
// the entry's blob hash is its own.
func (b *builder) statClean(f *pending) bool {
	e := f.c.entry
	return e != nil && !f.symlink && (e.Mode == filemode.Regular || e.Mode == filemode.Executable) &&
		int64(e.Size) == f.fi.Size()&0xffffffff && e.ModifiedAt.Equal(f.fi.ModTime()) && !b.racy(f.fi) && !b.conflicted[f.c.path]
}

// analysis returns f's cache key and the analysis of its content: cached,
// or computed (reading the file if hash did not) and cached.
func (w *worker) analysis(ctx context.Context, f *pending) (string, *cacheEntry, *Skip, error) {
	hint := DetectLang(f.c.path, nil)
	if hint == "" && path.Ext(f.c.path) == "" {
		hint = "#!" // the "#!" line decides: part of the content
	}
	key := cacheKey(f.blob, hint)
	if ce, ok := w.cache.get(key); ok {
		return key, ce, nil, nil
	}
	if f.content == nil {
		content, err := w.read(f.readPath, f.fi.Size())
		if err != nil {
			return "", nil, f.skip(SkipUnreadable, err.Error()), nil
		}
		f.content = content
	}
	ce, err := w.analyze(ctx, f.c.path, f.content)
	if err != nil {
		return "", nil, nil, err
	}
	w.cache.put(key, ce)
	return key, ce, nil, nil
}

// classifyByContent turns f, with its analysis ce under the cache key, into
// a File, or a Skip by content: binary, not UTF-8, or (unless all)
// generated or minified.
func (f *pending) classifyByContent(key string, ce *cacheEntry, all bool) result {
	c := f.c
	res := result{key: key}
	switch {
	case ce.Binary:
		res.skip = &Skip{Path: c.path, Reason: SkipBinary}
		return res
	case ce.NotUTF8:
		res.skip = &Skip{Path: c.path, Reason: SkipNotUTF8, Detail: notUTF8Detail(ce.BadByte)}
		return res
	case ce.Generated && c.ling.state[lingGenerated] != attrFalse:
		f.class = Generated
	case ce.Minified:
		f.class = Minified
	}
	if r := classSkip(f.class); r != "" && !all {
		res.skip = &Skip{Path: c.path, Reason: r, Detail: "by content"}
		return res
	}
	res.file = File{
		Path:    c.path,
		Size:    f.fi.Size(),
		Lang:    ce.Lang,
		Blob:    f.blob,
		Status:  f.status,
		Class:   f.class,
		Tokens:  ce.Tokens,
		Symbols: ce.Symbols,
		Refs:    ce.Refs,
	}
	return res
}

// racy reports a file modified in the same second as, or after, the git
// index was written: its stat data cannot prove it unchanged (git's "racily
// clean" entries), so it is hashed.
func (b *builder) racy(fi fs.FileInfo) bool {
	return b.indexTime.IsZero() || !fi.ModTime().Before(b.indexTime)
}

// textSignature reports whether content that is not valid UTF-8 may still
// be text in a legacy encoding: a format with a signature that is not text
// (a PDF, which Illustrator's .ai files are) has no NUL byte early, but it
// is binary all the same, and no encoding converts it. The standard
// library's sniffer (net/http.DetectContentType) knows the signatures.
func textSignature(content []byte) bool {
	return strings.HasPrefix(http.DetectContentType(content), "text/")
}

// binaryHead reports whether the file at p looks binary by its first
// BinarySniffBytes bytes: a NUL byte, or bytes that are not UTF-8 in a
// format that is not text. An unreadable file is not (it is reported as
// what it is elsewhere).
func binaryHead(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, BinarySniffBytes)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if isBinary(head) {
		return true
	}
	// A rune cut off by the head's end is not a bad byte.
	at := badutf8.Offset(head)
	return at < len(head) && utf8.FullRune(head[at:]) && !textSignature(head)
}

// analyze computes the cacheable facts about one file's content.
func (w *worker) analyze(ctx context.Context, p string, src []byte) (*cacheEntry, error) {
	ce := &cacheEntry{}
	if isBinary(src) {
		ce.Binary = true
		return ce, nil
	}
	if !utf8.Valid(src) {
		if !textSignature(src) {
			ce.Binary = true
			return ce, nil
		}
		ce.NotUTF8, ce.BadByte = true, badutf8.Offset(src)
		return ce, nil
	}
	ce.Generated = isGeneratedContent(p, src)
	ce.Minified = isMinified(src)
	ce.Tokens = (len(src) + bytesPerToken - 1) / bytesPerToken
	if w.seen == nil {
		w.seen = map[string]struct{}{}
	}
	lang := DetectLang(p, src)
	if lang != "" && !ce.Minified {
		syms, refs, err := w.x.extract(ctx, lang, src)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			w.b.logf("%s: %v (indexed lexically)", p, err)
		default:
			ce.Lang, ce.Symbols, ce.Refs = lang, w.b.strs.symbols(syms), w.b.strs.all(refs)
			return ce, nil
		}
	}
	ce.Refs = w.b.strs.all(lexicalRefs(src, w.seen))
	return ce, nil
}

// hashBlob is git's blob hash of content.
func hashBlob(content []byte) string {
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(content)) + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

func readlink(p string) string {
	t, err := os.Readlink(p)
	if err != nil {
		return ""
	}
	return "-> " + t
}
