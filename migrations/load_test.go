package migrations

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoad(t *testing.T) {
	tests := []struct {
		name    string
		files   []string
		want    []int
		wantErr string
	}{
		{"ordered", []string{"0002_b.sql", "0001_a.sql", "0010_c.sql"}, []int{1, 2, 10}, ""},
		{"duplicate version", []string{"0001_a.sql", "1_b.sql"}, nil, "share version 1"},
		{"bad name", []string{"0001-a.sql"}, nil, "want a name like"},
		{"zero version", []string{"0000_a.sql"}, nil, "positive"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := fstest.MapFS{}
			for _, f := range tt.files {
				fsys["sql/"+f] = &fstest.MapFile{Data: []byte("SELECT 1")}
			}
			ms, err := load(fsys, "sql")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("load error = %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, m := range ms {
				got = append(got, m.version)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("versions %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("versions %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestDuplicateVersionPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("mustLoad did not panic on a duplicate version")
		}
	}()
	mustLoad(fstest.MapFS{
		"sql/0001_a.sql": &fstest.MapFile{Data: []byte("SELECT 1")},
		"sql/0001_b.sql": &fstest.MapFile{Data: []byte("SELECT 1")},
	}, "sql")
}

func TestEmbedded(t *testing.T) {
	if len(all) == 0 || all[0].version != 1 || !strings.Contains(all[0].sql, "CREATE EXTENSION IF NOT EXISTS vector") {
		t.Fatalf("embedded migrations start with %+v, want 0001 creating the vector extension", all)
	}
}
