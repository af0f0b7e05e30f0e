package diff

const (
	seedBroken = "../testdata/bundles/seed-broken"
	seedFixed  = "../testdata/bundles/seed-fixed"
)
