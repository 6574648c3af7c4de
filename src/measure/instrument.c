/* The window instruments (instrument.h), each defined in its own file. */
#include "instrument.h"

extern const struct window_instrument rotation_instrument, rtt_instrument, endpoint_instrument,
    host_cpus_instrument, energy_instrument;

const struct window_instrument *const window_instruments[] = {
    &rotation_instrument,  &rtt_instrument,    &endpoint_instrument,
    &host_cpus_instrument, &energy_instrument,
};
const size_t n_window_instruments = ARRAY_SIZE(window_instruments);
_Static_assert(ARRAY_SIZE(window_instruments) <= WINDOW_INSTRUMENTS_MAX,
               "WINDOW_INSTRUMENTS_MAX below the table");
