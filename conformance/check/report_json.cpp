// Placeholder: filled in by its own change.
#include "rocecert/check/report_io.h"
#include "rocecert/check/profile.h"
