// configs/published/memory_hierarchy.json as built into the binary (the
// published_embedded target in analysis/BUILD, made by //tools:embed.bzl).

#ifndef DISSECT_ANALYSIS_SECTIONS_PUBLISHED_EMBEDDED_H_
#define DISSECT_ANALYSIS_SECTIONS_PUBLISHED_EMBEDDED_H_

namespace dissect::analysis {

// The file's text, NUL-terminated.
extern const char kEmbeddedPublishedJson[];

// How the report names it.
inline constexpr char kEmbeddedPublishedOrigin[] =
    "configs/published/memory_hierarchy.json";

}  // namespace dissect::analysis

#endif  // DISSECT_ANALYSIS_SECTIONS_PUBLISHED_EMBEDDED_H_
