#ifndef BREEZE_CMOSQUITTO_SHIM_H
#define BREEZE_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
