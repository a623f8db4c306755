// `rocecert vectors run`: a DUT profile's reading of the vectors' results (--profile;
// docs/profiles.md, "Vector deviations"), and how a result is printed.
#pragma once

#include <optional>
#include <string>

#include "rocecert/check/profile.h"
#include "rocecert/vectors/vectors.h"

namespace rocecert::cli {

// A FAIL the profile explains becomes a DEVIATION, with the explanation in r.declared:
//  - the vector declares an error profile (its adapters' "error_profile") other than the one
//    the DUT profile follows (its "model"): the vector's twin with the DUT's error profile
//    judges that error class (vectors/errors has both, docs/errors.md lists the differences);
//  - a vector deviation of the profile covers every difference.
void apply_profile(vectors::Result& r, const vectors::Loaded& l, const check::Profile& p);

// `name_or_path` as `rocecert check --profile` reads it; nullopt when empty. A profile that
// cannot be read throws vectors::VectorError (exit code 2).
std::optional<check::Profile> load_profile(const std::string& name_or_path);

// "VERDICT     id", the profile's explanation of a DEVIATION, then each difference; with
// `quiet`, FAILs only.
void print_result(const vectors::Result& r, bool quiet);

}  // namespace rocecert::cli
