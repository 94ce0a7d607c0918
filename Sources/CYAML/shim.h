#ifndef BREEZE_CYAML_SHIM_H
#define BREEZE_CYAML_SHIM_H
#include <yaml.h>
#endif
