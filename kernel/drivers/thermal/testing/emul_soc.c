// SPDX-License-Identifier: GPL-2.0
/*
 * An emulated SoC to run thermal governors on: a thermal zone whose
 * temperature follows a two-node RC model (die and case, with ambient)
 * heated by the power its cooling devices really draw, and power actors
 * with real OPP tables (a HiKey960-like SoC: 4 little cores, 4 big cores,
 * and a GPU) that implement the power API.
 *
 * Time is simulated: every update advances the model by one period and
 * then lets the thermal core run the zone's governor, so a run is the
 * same however slowly the machine runs it.  A governor that times its
 * updates by the clock, as power_allocator does on a polled zone, sees
 * a run's updates come back to back: set passive_delay_ms only for one
 * that needs a polling delay to divide by (the tree's power_allocator),
 * and one the runs never let expire.  Everything is driven from
 * debugfs, in thermal-emul-soc/:
 *
 *   setup    (w) "key=value ..." (re)creates the zone and its actors;
 *                keys: sustainable_power, ambient, period_ms,
 *                passive_delay_ms, switch_on, desired, opps (full or
 *                coarse), gpu (0 or 1), weight_little, weight_big,
 *                weight_gpu, governor; temperatures in millicelsius,
 *                ambient -40 to 100 °C, trips -40 to 150 °C
 *   load     (w) "little=N big=N gpu=N", percent load of the actors named
 *   ambient  (w) ambient temperature, millicelsius, -40 to 100 °C
 *   run      (w) N: run N updates now
 *   actor    (w) "unregister NAME", "register NAME", or "fail NAME" and
 *                "heal NAME": its power operations fail, or work again
 *   record   (r) one CSV line per update since setup
 *   platform (r) the model's constants, the passive trips as the zone
 *                has them, and the OPP tables
 */

#include <linux/debugfs.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/thermal.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#define EMUL_NAME "thermal-emul-soc"

/* The RC model: resistances in microcelsius per mW, capacities in mJ/°C. */
#define R_DIE_CASE	1500	/* 1.5 °C/W */
#define R_CASE_AMBIENT	9610	/* 9.61 °C/W: 4.5 W hold the die 50 °C above ambient */
#define C_DIE		600	/* 0.6 J/°C: the die follows power within a second */
#define C_CASE		8000	/* 8 J/°C: the case over a minute and more */
#define SUBSTEP_MS	10

#define MAX_UPDATES	200000	/* a long run's record: 200k updates */

/*
 * Temperatures the model and the zone take, in m°C.  The hot and critical
 * trips sit 20 and 40 °C above the desired one, which must not wrap an int.
 */
#define AMBIENT_MIN	-40000
#define AMBIENT_MAX	100000
#define TRIP_MIN	-40000
#define TRIP_MAX	150000

/**
 * struct emul_opp - an operating point
 * @mhz: frequency
 * @mv: voltage
 */
struct emul_opp {
	u32 mhz;
	u32 mv;
};

/* hi3660 OPPs, from its device tree */
static const struct emul_opp little_opps[] = {
	{ 533, 700 }, { 999, 800 }, { 1402, 900 }, { 1709, 1000 }, { 1844, 1100 },
};

static const struct emul_opp big_opps[] = {
	{ 903, 700 }, { 1421, 800 }, { 1805, 900 }, { 2112, 1000 }, { 2362, 1100 },
};

static const struct emul_opp gpu_opps[] = {
	{ 178, 700 }, { 400, 750 }, { 533, 800 }, { 807, 900 }, { 960, 950 }, { 1037, 1000 },
};

/* The coarse platform keeps the lowest, a middle and the highest OPP. */
static const struct emul_opp little_coarse[] = { { 533, 700 }, { 1402, 900 }, { 1844, 1100 } };
static const struct emul_opp big_coarse[] = { { 903, 700 }, { 1805, 900 }, { 2362, 1100 } };
static const struct emul_opp gpu_coarse[] = { { 178, 700 }, { 533, 800 }, { 1037, 1000 } };

/**
 * struct emul_actor - a power actor: a cluster of identical cores or a GPU
 * @name: cooling device type
 * @nr_cores: cores, each drawing the OPP's power at full load
 * @coeff: dynamic-power coefficient, as the Energy Model takes it
 * @opps: operating points, slowest first; cooling state 0 is the fastest
 * @nr_opps: their number
 * @weight: weight of its binding to the zone
 * @load: percent load of every core
 * @state: current cooling state
 * @requested: the power last reported by get_requested_power()
 * @granted: the power last passed to power2state() in this update, or -1
 * @cdev: its cooling device, NULL while unregistered
 * @present: part of this platform
 * @fail: its power operations fail with -EIO
 */
struct emul_actor {
	const char *name;
	unsigned int nr_cores;
	u32 coeff;
	const struct emul_opp *opps;
	unsigned int nr_opps;
	unsigned int weight;
	unsigned int load;
	unsigned long state;
	u32 requested;
	s64 granted;
	struct thermal_cooling_device *cdev;
	bool present;
	bool fail;
};

enum { LITTLE, BIG, GPU, NR_ACTORS };

/**
 * struct emul_update - what one update saw and did
 * @t_die: die temperature, millicelsius
 * @t_case: case temperature
 * @t_ambient: ambient temperature
 * @state: each actor's cooling state after the governor ran
 * @load: each actor's load
 * @requested: each actor's requested power
 * @granted: each actor's granted power, or -1 if none was granted
 * @power: each actor's power drawn over the period
 */
struct emul_update {
	s32 t_die, t_case, t_ambient;
	u8 state[NR_ACTORS];
	u8 load[NR_ACTORS];
	u32 requested[NR_ACTORS];
	s32 granted[NR_ACTORS];
	u32 power[NR_ACTORS];
};

/**
 * struct emul_soc - the emulated platform
 * @lock: protects the model, the actors' state and the record
 * @setup_lock: serializes setup, teardown and runs
 * @tz: its thermal zone
 * @trips: switch-on and desired (passive, writable through sysfs as a
 *	device tree's are), hot and critical
 * @actors: the power actors
 * @t_die: die temperature, microcelsius
 * @t_case: case temperature, microcelsius
 * @t_ambient: ambient temperature, millicelsius
 * @period_ms: simulated time one update stands for
 * @passive_delay_ms: the zone's passive polling; 0 polls never
 * @sustainable_power: given to the governor; 0 lets it estimate one
 * @governor: governor the zone starts with
 * @record: one entry per update
 * @nr_updates: updates recorded
 * @dir: its debugfs directory
 */
struct emul_soc {
	struct mutex lock;		/* the model, actors and record */
	struct mutex setup_lock;	/* setup, teardown and runs */
	struct thermal_zone_device *tz;
	struct thermal_trip trips[4];
	struct emul_actor actors[NR_ACTORS];
	s64 t_die, t_case;
	s32 t_ambient;
	u32 period_ms;
	u32 passive_delay_ms;
	u32 sustainable_power;
	char governor[THERMAL_NAME_LENGTH];
	struct emul_update *record;
	unsigned int nr_updates;
	struct dentry *dir;
};

static struct emul_soc soc = {
	.lock = __MUTEX_INITIALIZER(soc.lock),
	.setup_lock = __MUTEX_INITIALIZER(soc.setup_lock),
};

/*----------------------------------------------------------------*/

/* Power of one core at full load at @opp, in mW, as the Energy Model has it. */
static u32 opp_core_power(const struct emul_actor *a, const struct emul_opp *opp)
{
	return div_u64((u64)a->coeff * opp->mv * opp->mv * opp->mhz, 1000000000);
}

static const struct emul_opp *state_opp(const struct emul_actor *a, unsigned long state)
{
	return &a->opps[a->nr_opps - 1 - min_t(unsigned long, state, a->nr_opps - 1)];
}

/* Power drawn at @state under the actor's load. */
static u32 actor_power(const struct emul_actor *a, unsigned long state)
{
	return opp_core_power(a, state_opp(a, state)) * a->nr_cores * a->load / 100;
}

static struct emul_actor *cdev_actor(struct thermal_cooling_device *cdev)
{
	return cdev->devdata;
}

static int emul_get_max_state(struct thermal_cooling_device *cdev, unsigned long *state)
{
	*state = cdev_actor(cdev)->nr_opps - 1;
	return 0;
}

static int emul_get_cur_state(struct thermal_cooling_device *cdev, unsigned long *state)
{
	mutex_lock(&soc.lock);
	*state = cdev_actor(cdev)->state;
	mutex_unlock(&soc.lock);
	return 0;
}

static int emul_set_cur_state(struct thermal_cooling_device *cdev, unsigned long state)
{
	struct emul_actor *a = cdev_actor(cdev);

	if (state >= a->nr_opps)
		return -EINVAL;
	mutex_lock(&soc.lock);
	a->state = state;
	mutex_unlock(&soc.lock);
	return 0;
}

/* As cpufreq_cooling: the power at the current OPP, scaled by the load. */
static int emul_get_requested_power(struct thermal_cooling_device *cdev, u32 *power)
{
	struct emul_actor *a = cdev_actor(cdev);

	mutex_lock(&soc.lock);
	*power = actor_power(a, a->state);
	a->requested = *power;
	mutex_unlock(&soc.lock);
	return READ_ONCE(a->fail) ? -EIO : 0;
}

/* The power of all cores at full load at @state. */
static int emul_state2power(struct thermal_cooling_device *cdev, unsigned long state,
			    u32 *power)
{
	struct emul_actor *a = cdev_actor(cdev);

	if (state >= a->nr_opps)
		return -EINVAL;
	*power = opp_core_power(a, state_opp(a, state)) * a->nr_cores;
	return READ_ONCE(a->fail) ? -EIO : 0;
}

/* The performance of all cores at full load at @state: MHz times cores. */
static int emul_state2perf(struct thermal_cooling_device *cdev, unsigned long state,
			   u32 *perf)
{
	struct emul_actor *a = cdev_actor(cdev);

	if (state >= a->nr_opps)
		return -EINVAL;
	*perf = state_opp(a, state)->mhz * a->nr_cores;
	return READ_ONCE(a->fail) ? -EIO : 0;
}

/*
 * As cpufreq_cooling: the budget is normalised by the load, and the
 * fastest OPP whose full-load power fits it is chosen.
 */
static int emul_power2state(struct thermal_cooling_device *cdev, u32 power,
			    unsigned long *state)
{
	struct emul_actor *a = cdev_actor(cdev);
	u32 load, per_core;
	unsigned long s;

	if (READ_ONCE(a->fail))
		return -EIO;
	mutex_lock(&soc.lock);
	a->granted = power;
	load = a->load ? a->load * a->nr_cores : 1;
	mutex_unlock(&soc.lock);

	per_core = div_u64((u64)power * 100, load);
	for (s = 0; s < a->nr_opps - 1; s++)
		if (opp_core_power(a, state_opp(a, s)) <= per_core)
			break;
	*state = s;
	return 0;
}

static const struct thermal_cooling_device_ops emul_cdev_ops = {
	.get_max_state = emul_get_max_state,
	.get_cur_state = emul_get_cur_state,
	.set_cur_state = emul_set_cur_state,
	.get_requested_power = emul_get_requested_power,
	.state2power = emul_state2power,
	.power2state = emul_power2state,
	.state2perf = emul_state2perf,
};

/*----------------------------------------------------------------*/

static int emul_get_temp(struct thermal_zone_device *tz, int *temp)
{
	mutex_lock(&soc.lock);
	*temp = div_s64(soc.t_die, 1000);
	mutex_unlock(&soc.lock);
	return 0;
}

/*
 * Actors bind to the desired-temperature trip, with their weights.  The
 * zone's trips are copies of @soc.trips, whose temperatures sysfs may
 * have changed since: the desired one is told by its @priv.
 */
static bool emul_should_bind(struct thermal_zone_device *tz, const struct thermal_trip *trip,
			     struct thermal_cooling_device *cdev, struct cooling_spec *c)
{
	struct emul_actor *a;

	if (cdev->ops != &emul_cdev_ops || trip->priv != &soc.trips[1])
		return false;

	a = cdev_actor(cdev);
	c->weight = a->weight;
	return true;
}

/* Reaching the hot or critical trip is a result, not a reason to power off. */
static void emul_hot(struct thermal_zone_device *tz)
{
	pr_warn_ratelimited(EMUL_NAME ": hot trip reached\n");
}

static void emul_critical(struct thermal_zone_device *tz)
{
	pr_warn_ratelimited(EMUL_NAME ": critical trip reached\n");
}

static const struct thermal_zone_device_ops emul_tz_ops = {
	.should_bind = emul_should_bind,
	.get_temp = emul_get_temp,
	.hot = emul_hot,
	.critical = emul_critical,
};

/*----------------------------------------------------------------*/

/* Advance the RC model by @ms with the power the actors draw now. */
static void model_advance(unsigned int ms)
{
	unsigned int t, i;
	s64 p = 0, q_dc, q_ca;

	lockdep_assert_held(&soc.lock);
	for (i = 0; i < NR_ACTORS; i++)
		if (soc.actors[i].cdev)
			p += actor_power(&soc.actors[i], soc.actors[i].state);

	for (t = 0; t < ms; t += SUBSTEP_MS) {
		unsigned int dt = min_t(unsigned int, SUBSTEP_MS, ms - t);

		q_dc = div_s64(soc.t_die - soc.t_case, R_DIE_CASE);			/* mW */
		q_ca = div_s64(soc.t_case - (s64)soc.t_ambient * 1000, R_CASE_AMBIENT);
		/* mW * ms = uJ; uJ / (mJ/°C) = m°C */
		soc.t_die += div_s64((p - q_dc) * dt * 1000, C_DIE);
		soc.t_case += div_s64((q_dc - q_ca) * dt * 1000, C_CASE);
	}
}

static void record_update(void)
{
	struct emul_update *u;
	unsigned int i;

	lockdep_assert_held(&soc.lock);
	if (!soc.record || soc.nr_updates >= MAX_UPDATES)
		return;

	u = &soc.record[soc.nr_updates++];
	u->t_die = div_s64(soc.t_die, 1000);
	u->t_case = div_s64(soc.t_case, 1000);
	u->t_ambient = soc.t_ambient;
	for (i = 0; i < NR_ACTORS; i++) {
		struct emul_actor *a = &soc.actors[i];

		u->state[i] = a->state;
		u->load[i] = a->cdev ? a->load : 0;
		u->requested[i] = a->requested;
		u->granted[i] = a->granted < 0 ? -1 : min_t(s64, a->granted, S32_MAX);
		u->power[i] = a->cdev ? actor_power(a, a->state) : 0;
	}
}

/* One update: a period of the model, then the governor through the core. */
static void run_update(void)
{
	unsigned int i;

	mutex_lock(&soc.lock);
	model_advance(soc.period_ms);
	for (i = 0; i < NR_ACTORS; i++)
		soc.actors[i].granted = -1;
	mutex_unlock(&soc.lock);

	thermal_zone_device_update(soc.tz, THERMAL_EVENT_UNSPECIFIED);

	mutex_lock(&soc.lock);
	record_update();
	mutex_unlock(&soc.lock);
}

/*----------------------------------------------------------------*/

static int register_actor(struct emul_actor *a)
{
	struct thermal_cooling_device *cdev;

	if (a->cdev || !a->present)
		return a->present ? -EBUSY : -ENODEV;

	cdev = thermal_cooling_device_register(a->name, a, &emul_cdev_ops);
	if (IS_ERR(cdev))
		return PTR_ERR(cdev);
	mutex_lock(&soc.lock);
	a->cdev = cdev;
	mutex_unlock(&soc.lock);
	return 0;
}

static void unregister_actor(struct emul_actor *a)
{
	struct thermal_cooling_device *cdev = a->cdev;

	if (!cdev)
		return;
	thermal_cooling_device_unregister(cdev);
	mutex_lock(&soc.lock);
	a->cdev = NULL;
	mutex_unlock(&soc.lock);
}

static void teardown(void)
{
	unsigned int i;

	for (i = 0; i < NR_ACTORS; i++)
		unregister_actor(&soc.actors[i]);
	if (soc.tz)
		thermal_zone_device_unregister(soc.tz);
	soc.tz = NULL;
	vfree(soc.record);
	soc.record = NULL;
	soc.nr_updates = 0;
}

struct emul_config {
	u32 sustainable_power;
	s32 ambient;
	u32 period_ms;
	u32 passive_delay_ms;
	s32 switch_on;
	s32 desired;
	bool coarse;
	bool gpu;
	u32 weight[NR_ACTORS];
	char governor[THERMAL_NAME_LENGTH];
};

static int parse_opps(const char *val, bool *coarse)
{
	if (!strcmp(val, "full"))
		*coarse = false;
	else if (!strcmp(val, "coarse"))
		*coarse = true;
	else
		return -EINVAL;
	return 0;
}

static bool ambient_valid(int ambient)
{
	return ambient >= AMBIENT_MIN && ambient <= AMBIENT_MAX;
}

static int parse_config(char *buf, struct emul_config *c)
{
	char *tok, *val;
	int r = 0;

	while ((tok = strsep(&buf, " \t\n")) && !r) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = 0;
		if (!strcmp(tok, "sustainable_power"))
			r = kstrtou32(val, 0, &c->sustainable_power);
		else if (!strcmp(tok, "ambient"))
			r = kstrtos32(val, 0, &c->ambient);
		else if (!strcmp(tok, "period_ms"))
			r = kstrtou32(val, 0, &c->period_ms);
		else if (!strcmp(tok, "passive_delay_ms"))
			r = kstrtou32(val, 0, &c->passive_delay_ms);
		else if (!strcmp(tok, "switch_on"))
			r = kstrtos32(val, 0, &c->switch_on);
		else if (!strcmp(tok, "desired"))
			r = kstrtos32(val, 0, &c->desired);
		else if (!strcmp(tok, "opps"))
			r = parse_opps(val, &c->coarse);
		else if (!strcmp(tok, "gpu"))
			r = kstrtobool(val, &c->gpu);
		else if (!strcmp(tok, "weight_little"))
			r = kstrtou32(val, 0, &c->weight[LITTLE]);
		else if (!strcmp(tok, "weight_big"))
			r = kstrtou32(val, 0, &c->weight[BIG]);
		else if (!strcmp(tok, "weight_gpu"))
			r = kstrtou32(val, 0, &c->weight[GPU]);
		else if (!strcmp(tok, "governor"))
			strscpy(c->governor, val, sizeof(c->governor));
		else
			r = -EINVAL;
	}

	if (!r && (!c->period_ms || c->period_ms > 10000 || c->desired <= c->switch_on ||
		   !ambient_valid(c->ambient) || c->switch_on < TRIP_MIN || c->desired > TRIP_MAX))
		r = -EINVAL;
	return r;
}

static void init_actor(struct emul_actor *a, const char *name, unsigned int nr_cores, u32 coeff,
		       const struct emul_opp *opps, unsigned int nr_opps, u32 weight, bool present)
{
	a->name = name;
	a->nr_cores = nr_cores;
	a->coeff = coeff;
	a->opps = opps;
	a->nr_opps = nr_opps;
	a->weight = weight;
	a->load = 0;
	a->state = 0;
	a->requested = 0;
	a->granted = -1;
	a->present = present;
	a->fail = false;
}

static int setup(struct emul_config *c)
{
	/* no hwmon device: sensor daemons would show the emulated die */
	struct thermal_zone_params tzp = { .sustainable_power = c->sustainable_power,
					   .no_hwmon = true };
	struct thermal_zone_device *tz;
	unsigned int i;
	int r;

	teardown();

	soc.record = vzalloc(array_size(MAX_UPDATES, sizeof(*soc.record)));
	if (!soc.record)
		return -ENOMEM;

	mutex_lock(&soc.lock);
	if (c->coarse) {
		init_actor(&soc.actors[LITTLE], "emul-little", 4, 110, little_coarse,
			   ARRAY_SIZE(little_coarse), c->weight[LITTLE], true);
		init_actor(&soc.actors[BIG], "emul-big", 4, 550, big_coarse,
			   ARRAY_SIZE(big_coarse), c->weight[BIG], true);
		init_actor(&soc.actors[GPU], "emul-gpu", 1, 2000, gpu_coarse,
			   ARRAY_SIZE(gpu_coarse), c->weight[GPU], c->gpu);
	} else {
		init_actor(&soc.actors[LITTLE], "emul-little", 4, 110, little_opps,
			   ARRAY_SIZE(little_opps), c->weight[LITTLE], true);
		init_actor(&soc.actors[BIG], "emul-big", 4, 550, big_opps,
			   ARRAY_SIZE(big_opps), c->weight[BIG], true);
		init_actor(&soc.actors[GPU], "emul-gpu", 1, 2000, gpu_opps,
			   ARRAY_SIZE(gpu_opps), c->weight[GPU], c->gpu);
	}
	soc.t_ambient = c->ambient;
	soc.t_die = (s64)c->ambient * 1000;
	soc.t_case = soc.t_die;
	soc.period_ms = c->period_ms;
	soc.passive_delay_ms = c->passive_delay_ms;
	soc.sustainable_power = c->sustainable_power;
	strscpy(soc.governor, c->governor, sizeof(soc.governor));
	soc.trips[0] = (struct thermal_trip){ .type = THERMAL_TRIP_PASSIVE,
					     .temperature = c->switch_on,
					     .flags = THERMAL_TRIP_FLAG_RW_TEMP,
					     .priv = &soc.trips[0] };
	soc.trips[1] = (struct thermal_trip){ .type = THERMAL_TRIP_PASSIVE,
					     .temperature = c->desired,
					     .flags = THERMAL_TRIP_FLAG_RW_TEMP,
					     .priv = &soc.trips[1] };
	soc.trips[2] = (struct thermal_trip){ .type = THERMAL_TRIP_HOT,
					     .temperature = c->desired + 20000 };
	soc.trips[3] = (struct thermal_trip){ .type = THERMAL_TRIP_CRITICAL,
					     .temperature = c->desired + 40000 };
	mutex_unlock(&soc.lock);

	if (soc.governor[0])
		tzp.governor_name = soc.governor;
	tz = thermal_zone_device_register_with_trips("emul-soc", soc.trips, ARRAY_SIZE(soc.trips),
						     NULL, &emul_tz_ops, &tzp,
						     c->passive_delay_ms, 0);
	if (IS_ERR(tz)) {
		r = PTR_ERR(tz);
		goto fail;
	}
	soc.tz = tz;

	for (i = 0; i < NR_ACTORS; i++) {
		if (!soc.actors[i].present)
			continue;
		r = register_actor(&soc.actors[i]);
		if (r)
			goto fail;
	}

	r = thermal_zone_device_enable(tz);
	if (r)
		goto fail;
	return 0;

fail:
	teardown();
	return r;
}

/*----------------------------------------------------------------*/

static ssize_t read_command(const char __user *ubuf, size_t len, char **out)
{
	if (len > 512)
		return -E2BIG;
	*out = memdup_user_nul(ubuf, len);
	return PTR_ERR_OR_ZERO(*out);
}

static ssize_t setup_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	struct emul_config c = {
		.ambient = 25000, .period_ms = 100, .switch_on = 65000, .desired = 75000,
		.gpu = true, .weight = { 1024, 1024, 1024 }, .sustainable_power = 4500,
	};
	char *buf;
	ssize_t r = read_command(ubuf, len, &buf);

	if (r)
		return r;
	r = parse_config(buf, &c);
	kfree(buf);
	if (r)
		return r;

	mutex_lock(&soc.setup_lock);
	r = setup(&c);
	mutex_unlock(&soc.setup_lock);
	return r ? r : len;
}

/* Loads in @buf ("big=80 gpu=0") into @load; the actors named go into @set. */
static int parse_load(char *buf, unsigned int load[NR_ACTORS], unsigned long *set)
{
	static const char *const names[NR_ACTORS] = { "little", "big", "gpu" };
	char *tok, *val;
	unsigned int i;
	int r;

	while ((tok = strsep(&buf, " \t\n"))) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = 0;
		for (i = 0; i < NR_ACTORS; i++)
			if (!strcmp(tok, names[i]))
				break;
		if (i == NR_ACTORS)
			return -EINVAL;
		r = kstrtouint(val, 0, &load[i]);
		if (r)
			return r;
		if (load[i] > 100)
			return -EINVAL;
		__set_bit(i, set);
	}
	return 0;
}

static ssize_t load_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	unsigned int load[NR_ACTORS], i;
	unsigned long set = 0;
	char *buf;
	ssize_t r = read_command(ubuf, len, &buf);

	if (r)
		return r;
	r = parse_load(buf, load, &set);
	kfree(buf);
	if (r)
		return r;

	/* only the actors named: a concurrent write keeps the others it set */
	mutex_lock(&soc.lock);
	for_each_set_bit(i, &set, NR_ACTORS)
		soc.actors[i].load = load[i];
	mutex_unlock(&soc.lock);
	return len;
}

static ssize_t ambient_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	int ambient, r = kstrtoint_from_user(ubuf, len, 0, &ambient);

	if (r)
		return r;
	if (!ambient_valid(ambient))
		return -EINVAL;
	mutex_lock(&soc.lock);
	soc.t_ambient = ambient;
	mutex_unlock(&soc.lock);
	return len;
}

static ssize_t run_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	unsigned int n, i;
	int r = kstrtouint_from_user(ubuf, len, 0, &n);

	if (r)
		return r;
	if (n > MAX_UPDATES)
		return -EINVAL;

	mutex_lock(&soc.setup_lock);
	if (!soc.tz) {
		mutex_unlock(&soc.setup_lock);
		return -ENODEV;
	}
	for (i = 0; i < n; i++) {
		run_update();
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	mutex_unlock(&soc.setup_lock);
	return len;
}

static ssize_t actor_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	char *buf, *name;
	unsigned int i;
	ssize_t r = read_command(ubuf, len, &buf);

	if (r)
		return r;
	name = strchr(strim(buf), ' ');
	r = -EINVAL;
	if (name) {
		*name++ = 0;
		mutex_lock(&soc.setup_lock);
		for (i = 0; i < NR_ACTORS; i++) {
			if (strcmp(name, soc.actors[i].name ? soc.actors[i].name + 5 : ""))
				continue;
			if (!strcmp(buf, "unregister")) {
				unregister_actor(&soc.actors[i]);
				r = 0;
			} else if (!strcmp(buf, "register")) {
				r = register_actor(&soc.actors[i]);
			} else if (!strcmp(buf, "fail") || !strcmp(buf, "heal")) {
				WRITE_ONCE(soc.actors[i].fail, !strcmp(buf, "fail"));
				r = 0;
			}
		}
		mutex_unlock(&soc.setup_lock);
	}
	kfree(buf);
	return r ? r : len;
}

/*
 * The record: a header, then a CSV line per update.  It goes out a buffer
 * at a time, each under the locks: formatted whole, a long run's record
 * held the zone's temperature reads (and the next run) up until the last
 * of its lines was written.
 */
static void *record_start(struct seq_file *m, loff_t *pos)
{
	mutex_lock(&soc.setup_lock);
	mutex_lock(&soc.lock);
	if (!*pos)
		return SEQ_START_TOKEN;
	return *pos <= soc.nr_updates ? pos : NULL;
}

static void *record_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return *pos <= soc.nr_updates ? pos : NULL;
}

static void record_stop(struct seq_file *m, void *v)
{
	mutex_unlock(&soc.lock);
	mutex_unlock(&soc.setup_lock);
}

static void record_header(struct seq_file *m)
{
	static const char *const columns[] = { "load", "state", "mhz", "req", "grant", "power" };
	unsigned int i, j;

	seq_puts(m, "update,time_ms,t_die,t_case,t_ambient");
	for (j = 0; j < NR_ACTORS; j++)
		for (i = 0; i < ARRAY_SIZE(columns); i++)
			seq_printf(m, ",%s_%s", soc.actors[j].name ?: "none", columns[i]);
	seq_putc(m, '\n');
}

static int record_show(struct seq_file *m, void *v)
{
	const struct emul_update *u;
	unsigned int i, j;

	if (v == SEQ_START_TOKEN) {
		record_header(m);
		return 0;
	}
	i = *(loff_t *)v - 1;
	u = &soc.record[i];
	seq_printf(m, "%u,%llu,%d,%d,%d", i + 1, (u64)(i + 1) * soc.period_ms, u->t_die,
		   u->t_case, u->t_ambient);
	for (j = 0; j < NR_ACTORS; j++) {
		const struct emul_actor *a = &soc.actors[j];

		seq_printf(m, ",%u,%u,%u,%u,%d,%u", u->load[j], u->state[j],
			   a->opps ? state_opp(a, u->state[j])->mhz : 0, u->requested[j],
			   u->granted[j], u->power[j]);
	}
	seq_putc(m, '\n');
	return 0;
}

static const struct seq_operations record_sops = {
	.start = record_start,
	.next = record_next,
	.stop = record_stop,
	.show = record_show,
};
DEFINE_SEQ_ATTRIBUTE(record);

/* The zone's copy of a passive trip of @soc.trips: its temperature. */
static int note_passive_temp(struct thermal_trip *trip, void *temps)
{
	int *t = temps;

	if (trip->priv == &soc.trips[0])
		t[0] = trip->temperature;
	else if (trip->priv == &soc.trips[1])
		t[1] = trip->temperature;
	return 0;
}

static int platform_show(struct seq_file *m, void *v)
{
	unsigned int i, j;
	int temps[2];

	/*
	 * The trips as the zone has them now, sysfs writes included.  The
	 * zone's lock is taken before, not under, @soc.lock: the governor
	 * calls the actors, which take @soc.lock, under it.
	 */
	mutex_lock(&soc.setup_lock);
	temps[0] = soc.trips[0].temperature;
	temps[1] = soc.trips[1].temperature;
	if (soc.tz)
		thermal_zone_for_each_trip(soc.tz, note_passive_temp, temps);
	mutex_lock(&soc.lock);
	seq_printf(m, "r_die_case_uc_per_mw %d\nr_case_ambient_uc_per_mw %d\n", R_DIE_CASE,
		   R_CASE_AMBIENT);
	seq_printf(m, "c_die_mj_per_c %d\nc_case_mj_per_c %d\nsubstep_ms %d\n", C_DIE, C_CASE,
		   SUBSTEP_MS);
	seq_printf(m, "period_ms %u\nambient %d\nswitch_on %d\ndesired %d\nsustainable_power %u\n",
		   soc.period_ms, soc.t_ambient, temps[0], temps[1], soc.sustainable_power);
	for (i = 0; i < NR_ACTORS; i++) {
		const struct emul_actor *a = &soc.actors[i];

		if (!a->present)
			continue;
		seq_printf(m, "actor %s cores %u coeff %u weight %u opps", a->name, a->nr_cores,
			   a->coeff, a->weight);
		for (j = 0; j < a->nr_opps; j++)
			seq_printf(m, " %u:%u:%u", a->opps[j].mhz, a->opps[j].mv,
				   opp_core_power(a, &a->opps[j]));
		seq_putc(m, '\n');
	}
	mutex_unlock(&soc.lock);
	mutex_unlock(&soc.setup_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(platform);

#define DEFINE_WRITE_FOPS(name)						\
	static const struct file_operations name##_fops = {		\
		.owner = THIS_MODULE,					\
		.write = name##_write,					\
	}

DEFINE_WRITE_FOPS(setup);
DEFINE_WRITE_FOPS(load);
DEFINE_WRITE_FOPS(ambient);
DEFINE_WRITE_FOPS(run);
DEFINE_WRITE_FOPS(actor);

static int __init emul_soc_init(void)
{
	soc.dir = debugfs_create_dir(EMUL_NAME, NULL);
	debugfs_create_file("setup", 0200, soc.dir, NULL, &setup_fops);
	debugfs_create_file("load", 0200, soc.dir, NULL, &load_fops);
	debugfs_create_file("ambient", 0200, soc.dir, NULL, &ambient_fops);
	debugfs_create_file("run", 0200, soc.dir, NULL, &run_fops);
	debugfs_create_file("actor", 0200, soc.dir, NULL, &actor_fops);
	debugfs_create_file("record", 0400, soc.dir, NULL, &record_fops);
	debugfs_create_file("platform", 0400, soc.dir, NULL, &platform_fops);
	return 0;
}
module_init(emul_soc_init);

static void __exit emul_soc_exit(void)
{
	debugfs_remove_recursive(soc.dir);
	mutex_lock(&soc.setup_lock);
	teardown();
	mutex_unlock(&soc.setup_lock);
}
module_exit(emul_soc_exit);

MODULE_DESCRIPTION("Emulated SoC with an RC thermal model and power actors, for governors");
MODULE_LICENSE("GPL");
