package bundle

// ManifestPath is the manifest's entry in a bundle (package manifest).
const ManifestPath = "manifest.json"
