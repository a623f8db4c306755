// Placeholder: filled in by its own change.
#include "rocecert/check/profile.h"
#include "rocecert/check/report_io.h"
