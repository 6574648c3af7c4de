/* A campaign's spec (spec.h) resolved against its profile: the profile's defaults taken for
 * what was not asked, and what was asked checked against the profile, the host and itself,
 * in one place: every usage error of a campaign's options that needs more than its own
 * value is raised here. Above the campaign and its metrics, which it reads. */
#ifndef LOOPBENCH_RESOLVE_H
#define LOOPBENCH_RESOLVE_H

#include <stddef.h>

#include "campaign.h"
#include "msg.h"
#include "profile.h"

/* Resolve c->spec as asked against the profile it names (spec.profile_path): load it, once
 * per variant from the variant's directory, into *profiles (*n_profiles of them, the
 * caller's to release and free, also on failure); take its defaults for what was not
 * asked; check what was asked against it, the host and itself; describe the profile in c
 * (its section, endpoint and probe) and find the commit of what runs. Resolving a spec
 * resolved before (read back by --resume) gives it again. -1 with err, the option at
 * fault named, when the campaign cannot run as asked. */
int campaign_spec_resolve(struct campaign *c, struct profile **profiles, size_t *n_profiles,
                          struct lb_error *err);

#endif
