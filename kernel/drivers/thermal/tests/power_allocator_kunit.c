// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the power allocator governor.  Included at the end of
 * gov_power_allocator.c, so the static functions are in scope.
 */

#include <kunit/test.h>

/*----------------------------------------------------------------*/
/* A zone of fake power actors, without the thermal core around it. */

/**
 * struct fake_actor - a cooling device whose power halves with each state
 * @max_power: power at state 0
 * @req: power it requests
 * @fail: its power operations fail
 * @fail_power2state: power2state() alone fails
 * @state: its cooling state
 * @powers: if set, the power of each state instead
 * @perfs: the performance of each state, for fake_perf_ops
 * @fail_top: state2perf() fails at state 0 only
 */
struct fake_actor {
	u32 max_power;
	u32 req;
	bool fail;
	bool fail_power2state;
	unsigned long state;
	const u32 *powers;
	const u32 *perfs;
	bool fail_top;
};

#define FAKE_MAX_STATE 4

/* pid_step()'s span of one 100 ms polling period, fixed point */
#define POLL_MS int_to_frac(100)

static struct fake_actor *fake(struct thermal_cooling_device *cdev)
{
	return cdev->devdata;
}

static int fake_get_max_state(struct thermal_cooling_device *cdev, unsigned long *state)
{
	*state = FAKE_MAX_STATE;
	return 0;
}

static int fake_get_cur_state(struct thermal_cooling_device *cdev, unsigned long *state)
{
	*state = fake(cdev)->state;
	return 0;
}

static int fake_set_cur_state(struct thermal_cooling_device *cdev, unsigned long state)
{
	fake(cdev)->state = state;
	return 0;
}

static int fake_get_requested_power(struct thermal_cooling_device *cdev, u32 *power)
{
	*power = fake(cdev)->req;
	return fake(cdev)->fail ? -EIO : 0;
}

static int fake_state2power(struct thermal_cooling_device *cdev, unsigned long state, u32 *power)
{
	if (state > FAKE_MAX_STATE)
		return -EINVAL;
	if (fake(cdev)->powers)
		*power = fake(cdev)->powers[state];
	else
		*power = fake(cdev)->max_power >> state;
	return fake(cdev)->fail ? -EIO : 0;
}

static int fake_state2perf(struct thermal_cooling_device *cdev, unsigned long state, u32 *perf)
{
	if (state > FAKE_MAX_STATE)
		return -EINVAL;
	*perf = fake(cdev)->perfs[state];
	return fake(cdev)->fail || (fake(cdev)->fail_top && !state) ? -EIO : 0;
}

static int fake_power2state(struct thermal_cooling_device *cdev, u32 power, unsigned long *state)
{
	unsigned long s = 0;

	while (s < FAKE_MAX_STATE && (fake(cdev)->max_power >> s) > power)
		s++;
	*state = s;
	return fake(cdev)->fail || fake(cdev)->fail_power2state ? -EIO : 0;
}

#define FAKE_POWER_OPS						\
	.get_max_state = fake_get_max_state,			\
	.get_cur_state = fake_get_cur_state,			\
	.set_cur_state = fake_set_cur_state,			\
	.get_requested_power = fake_get_requested_power,	\
	.state2power = fake_state2power,			\
	.power2state = fake_power2state

static const struct thermal_cooling_device_ops fake_ops = { FAKE_POWER_OPS };

/* The same devices, telling the performance of their states too. */
static const struct thermal_cooling_device_ops fake_perf_ops = {
	FAKE_POWER_OPS,
	.state2perf = fake_state2perf,
};

/* Two passive trips, 65 and 75 °C, polled every 100 ms when passive. */
static struct thermal_zone_device *fake_zone(struct kunit *test, u32 sustainable_power)
{
	struct thermal_zone_device *tz = kunit_kzalloc(test, struct_size(tz, trips, 2),
						       GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, tz);
	tz->num_trips = 2;
	for (i = 0; i < 2; i++) {
		tz->trips[i].trip.type = THERMAL_TRIP_PASSIVE;
		tz->trips[i].trip.temperature = 65000 + i * 10000;
		INIT_LIST_HEAD(&tz->trips[i].thermal_instances);
	}
	mutex_init(&tz->lock);
	tz->passive_delay_jiffies = msecs_to_jiffies(100);
	tz->tzp = kunit_kzalloc(test, sizeof(*tz->tzp), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, tz->tzp);
	tz->tzp->sustainable_power = sustainable_power;
	return tz;
}

static struct thermal_instance *fake_bind(struct kunit *test, struct thermal_zone_device *tz,
					  u32 max_power, u32 req, unsigned int weight)
{
	struct thermal_cooling_device *cdev = kunit_kzalloc(test, sizeof(*cdev), GFP_KERNEL);
	struct thermal_instance *instance = kunit_kzalloc(test, sizeof(*instance), GFP_KERNEL);
	struct fake_actor *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, cdev);
	KUNIT_ASSERT_NOT_NULL(test, instance);
	KUNIT_ASSERT_NOT_NULL(test, a);
	a->max_power = max_power;
	a->req = req;
	cdev->type = "fake";
	cdev->ops = &fake_ops;
	cdev->devdata = a;
	cdev->max_state = FAKE_MAX_STATE;
	mutex_init(&cdev->lock);
	INIT_LIST_HEAD(&cdev->thermal_instances);

	instance->cdev = cdev;
	instance->trip = &tz->trips[1].trip;
	instance->lower = 0;
	instance->upper = FAKE_MAX_STATE;
	instance->target = THERMAL_NO_TARGET;
	instance->weight = weight;
	list_add_tail(&instance->trip_node, &tz->trips[1].thermal_instances);
	list_add_tail(&instance->cdev_node, &cdev->thermal_instances);
	return instance;
}

static void unbind_action(void *tz)
{
	power_allocator_unbind(tz);
}

static void governor_bind(struct kunit *test, struct thermal_zone_device *tz)
{
	KUNIT_ASSERT_EQ(test, power_allocator_bind(tz), 0);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, unbind_action, tz), 0);
}

static unsigned long fake_state(struct thermal_instance *instance)
{
	return fake(instance->cdev)->state;
}

/*----------------------------------------------------------------*/

static void ipa_test_fixed_point(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mul_frac(int_to_frac(3), int_to_frac(4)), int_to_frac(12));
	KUNIT_EXPECT_EQ(test, mul_frac(-int_to_frac(3), FRAC_ONE / 2), -int_to_frac(3) / 2);
	KUNIT_EXPECT_EQ(test, div_frac(int_to_frac(3), int_to_frac(2)), int_to_frac(3) / 2);
	KUNIT_EXPECT_EQ(test, mul_frac(-3, 1), -1);
	/* saturation instead of overflow */
	KUNIT_EXPECT_EQ(test, mul_frac(S64_MAX / 2, S64_MAX / 2), FRAC_MAX);
	KUNIT_EXPECT_EQ(test, mul_frac(S64_MIN / 2, S64_MAX / 2), FRAC_MIN);
	KUNIT_EXPECT_EQ(test, mul_frac(S64_MIN, -1), FRAC_MAX);
	KUNIT_EXPECT_EQ(test, mul_frac(BIT_ULL(32), BIT_ULL(31)), FRAC_MAX);
	KUNIT_EXPECT_EQ(test, mul_frac(-(s64)BIT_ULL(32), BIT_ULL(29)), -(s64)BIT_ULL(51));
	KUNIT_EXPECT_EQ(test, div_frac(FRAC_MAX, 1), FRAC_MAX);
	KUNIT_EXPECT_EQ(test, gain(-5), 0);
	KUNIT_EXPECT_EQ(test, gain(S32_MAX), (s64)S32_MAX);
}

static void ipa_test_defaults(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 4500);
	struct power_allocator_params *params;

	fake_bind(test, tz, 4000, 1000, 1);
	governor_bind(test, tz);
	params = tz->governor_data;

	/* k_pu = 2 * SP / (T_desired - T_switch_on), k_po half of it, k_i a tenth */
	KUNIT_EXPECT_EQ(test, tz->tzp->k_po, (s32)(int_to_frac(4500) / 10000));
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, (s32)(int_to_frac(9000) / 10000));
	KUNIT_EXPECT_EQ(test, tz->tzp->k_i, tz->tzp->k_pu / 10);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_d, 0);
	KUNIT_EXPECT_EQ(test, tz->tzp->integral_cutoff, 0);
	KUNIT_EXPECT_PTR_EQ(test, params->trip_switch_on, &tz->trips[0].trip);
	KUNIT_EXPECT_PTR_EQ(test, params->trip_max, &tz->trips[1].trip);
}

/* A gain set by a user survives a new sustainable power; the others follow. */
static void ipa_test_user_gains_kept(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 4500);
	struct power_allocator_params *params;

	fake_bind(test, tz, 4000, 1000, 1);
	governor_bind(test, tz);
	params = tz->governor_data;

	tz->tzp->k_po = 777;
	tz->tzp->sustainable_power = 3000;
	get_sustainable_power(tz, params, 75000);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_po, 777);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, (s32)(int_to_frac(6000) / 10000));
	KUNIT_EXPECT_EQ(test, params->sustainable_power, 3000u);

	/* no sustainable power at all: estimated from the deepest states */
	tz->tzp->sustainable_power = 0;
	KUNIT_EXPECT_EQ(test, get_sustainable_power(tz, params, 75000), 4000u >> FAKE_MAX_STATE);
	KUNIT_EXPECT_EQ(test, tz->tzp->sustainable_power, 4000u >> FAKE_MAX_STATE);
}

/*
 * Bound again (a policy write), the governor estimates afresh the gains it
 * had estimated, and they keep following the sustainable power; a gain a
 * user set stays.
 */
static void ipa_test_rebind_gains(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 4500);

	fake_bind(test, tz, 4000, 1000, 1);
	KUNIT_ASSERT_EQ(test, power_allocator_bind(tz), 0);
	tz->tzp->k_po = 777;
	tz->tzp->sustainable_power = 3000;
	power_allocator_unbind(tz);

	governor_bind(test, tz);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_po, 777);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, (s32)(int_to_frac(6000) / 10000));
	tz->tzp->sustainable_power = 2000;
	get_sustainable_power(tz, tz->governor_data, 75000);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, (s32)(int_to_frac(4000) / 10000));
	KUNIT_EXPECT_EQ(test, tz->tzp->k_i, tz->tzp->k_pu / 10);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_po, 777);
}

/* A zone of 4500 mW bound with trip @i (0 switch-on, 1 desired) not set yet. */
static struct thermal_zone_device *bind_with_trip_unset(struct kunit *test, unsigned int i)
{
	struct thermal_zone_device *tz = fake_zone(test, 4500);

	tz->trips[i].trip.temperature = THERMAL_TEMP_INVALID;
	fake_bind(test, tz, 4000, 1000, 1);
	governor_bind(test, tz);
	return tz;
}

/*
 * A desired temperature not set yet at bind (a writable trip) gives no
 * range to estimate the gains from: they are estimated once it is set,
 * though the sustainable power has not changed meanwhile.
 */
static void ipa_test_gains_when_trips_allow(struct kunit *test)
{
	struct thermal_zone_device *tz = bind_with_trip_unset(test, 1);
	struct power_allocator_params *params = tz->governor_data;

	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, 0);
	get_sustainable_power(tz, params, THERMAL_TEMP_INVALID);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, 0);

	tz->trips[1].trip.temperature = 75000;
	KUNIT_EXPECT_EQ(test, get_sustainable_power(tz, params, 75000), 4500u);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_po, (s32)(int_to_frac(4500) / 10000));
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, (s32)(int_to_frac(9000) / 10000));
	KUNIT_EXPECT_EQ(test, tz->tzp->k_i, tz->tzp->k_pu / 10);
}

/*
 * A switch-on trip not set yet counts as none, and the gains nobody set
 * follow the trips when they are written.
 */
static void ipa_test_gains_follow_trips(struct kunit *test)
{
	struct thermal_zone_device *tz = bind_with_trip_unset(test, 0);
	struct power_allocator_params *params = tz->governor_data;

	/* from 0 C, not from -274 C (k_po 13) */
	KUNIT_EXPECT_EQ(test, tz->tzp->k_po, (s32)(int_to_frac(4500) / 75000));
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, (s32)(int_to_frac(9000) / 75000));

	tz->trips[0].trip.temperature = 65000;
	get_sustainable_power(tz, params, 75000);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_po, (s32)(int_to_frac(4500) / 10000));
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, (s32)(int_to_frac(9000) / 10000));
	KUNIT_EXPECT_EQ(test, tz->tzp->k_i, tz->tzp->k_pu / 10);

	/* a gain a user wrote stays when the desired temperature moves; E goes */
	params->equilibrium = int_to_frac(1400);
	get_sustainable_power(tz, params, 75000);
	KUNIT_EXPECT_EQ(test, params->equilibrium, int_to_frac(1400));
	tz->tzp->k_po = 300;
	tz->trips[1].trip.temperature = 85000;
	get_sustainable_power(tz, params, 85000);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_po, 300);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, (s32)(int_to_frac(9000) / 20000));
	KUNIT_EXPECT_EQ(test, params->equilibrium, 0);

	/* invalidated for a while and back as it was: E stays */
	params->equilibrium = int_to_frac(700);
	get_sustainable_power(tz, params, THERMAL_TEMP_INVALID);
	get_sustainable_power(tz, params, 85000);
	KUNIT_EXPECT_EQ(test, params->equilibrium, int_to_frac(700));
}

/*
 * Moves @tz's switch-on trip to @switch_on, with the desired one at 75 °C:
 * the trips are to be found @reversed, and k_pu estimated over @range.
 */
static void expect_gains_over(struct kunit *test, struct thermal_zone_device *tz,
			      int switch_on, bool reversed, s64 range)
{
	struct power_allocator_params *params = tz->governor_data;

	tz->trips[0].trip.temperature = switch_on;
	get_sustainable_power(tz, params, 75000);
	KUNIT_EXPECT_EQ(test, params->trips_reversed, reversed);
	KUNIT_EXPECT_EQ(test, params->est_range, range);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu,
			(s32)(int_to_frac(2 * tz->tzp->sustainable_power) / range));
}

/*
 * A switch-on trip at or above the desired one counts as none for the
 * gains: they are estimated from 0 °C, as for a single trip, and follow a
 * new sustainable power.  Left at 0 when the governor was bound to such
 * trips, they gave a fixed budget whatever the temperature.  The trips
 * are found reversed once (20-ipa-tunables counts the reports), and no
 * longer when back in order.
 */
static void ipa_test_trips_reversed(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 4500);
	struct thermal_zone_device *tz2 = fake_zone(test, 4500);
	struct power_allocator_params *params;

	fake_bind(test, tz, 4000, 4000, 1);
	governor_bind(test, tz);
	params = tz->governor_data;
	KUNIT_EXPECT_EQ(test, params->est_range, 10000);
	KUNIT_EXPECT_FALSE(test, params->trips_reversed);

	expect_gains_over(test, tz, 85000, true, 75000);
	tz->tzp->sustainable_power = 3000;
	expect_gains_over(test, tz, 85000, true, 75000);
	expect_gains_over(test, tz, 55000, false, 20000);

	/* bound to reversed trips */
	tz2->trips[0].trip.temperature = 85000;
	fake_bind(test, tz2, 4000, 4000, 1);
	governor_bind(test, tz2);
	params = tz2->governor_data;
	KUNIT_EXPECT_TRUE(test, params->trips_reversed);
	KUNIT_EXPECT_EQ(test, tz2->tzp->k_pu, (s32)(int_to_frac(9000) / 75000));
	KUNIT_EXPECT_GT(test, tz2->tzp->k_i, 0);
}

static void ipa_test_pid_terms(struct kunit *test)
{
	struct power_allocator_params params = {};
	struct thermal_zone_params tzp = { .k_po = 100, .k_pu = 200, .k_i = 10, .k_d = 0 };
	struct pid_terms t;

	/* 5 °C below target: p = k_pu * e, the integral gains one period of e */
	pid_step(&params, &tzp, int_to_frac(5000), FRAC_ONE, POLL_MS, 1000, 100000, &t);
	KUNIT_EXPECT_EQ(test, t.p, (s64)200 * 5000);
	KUNIT_EXPECT_EQ(test, t.i, 0);		/* above integral_cutoff 0: no integration */
	KUNIT_EXPECT_EQ(test, t.output, 1000u + 200 * 5000 / 1024);

	/* 2 °C above: k_po, and the integral accumulates */
	pid_step(&params, &tzp, -int_to_frac(2000), FRAC_ONE, POLL_MS, 1000, 100000, &t);
	KUNIT_EXPECT_EQ(test, t.p, -(s64)100 * 2000);
	KUNIT_EXPECT_EQ(test, params.err_integral, -int_to_frac(2000));
	KUNIT_EXPECT_EQ(test, t.i, -(s64)10 * 2000);

	/* the output is clamped to [0, max] */
	pid_step(&params, &tzp, -int_to_frac(100000), FRAC_ONE, POLL_MS, 1000, 5000, &t);
	KUNIT_EXPECT_EQ(test, t.output, 0u);
	pid_step(&params, &tzp, int_to_frac(100000), FRAC_ONE, POLL_MS, 1000, 5000, &t);
	KUNIT_EXPECT_EQ(test, t.output, 5000u);
}

/*
 * The integral never exceeds what max power can express, and unwinds at
 * once; nor once k_i grows, with nothing summed (the error above
 * integral_cutoff): a k_i written 100 times larger pinned the budget at 0
 * until the zone cooled below switch-on.  Max power shrinking for an
 * update, with nothing summed, leaves it be; summed, it is clamped.
 */
static void ipa_test_anti_windup(struct kunit *test)
{
	struct power_allocator_params params = {};
	struct thermal_zone_params tzp = { .k_po = 100, .k_pu = 200, .k_i = 50,
					   .integral_cutoff = 100000 };
	struct pid_terms t;
	unsigned int n;

	for (n = 0; n < 10000; n++)
		pid_step(&params, &tzp, int_to_frac(20000), FRAC_ONE, POLL_MS, 1000, 8000, &t);
	KUNIT_EXPECT_LE(test, abs(t.i), int_to_frac(8000));
	KUNIT_EXPECT_GE(test, t.i, int_to_frac(8000) - int_to_frac(1));

	/* one update overshooting is enough to pull the budget down */
	for (n = 0; n < 3; n++)
		pid_step(&params, &tzp, -int_to_frac(20000), FRAC_ONE, POLL_MS, 1000, 8000, &t);
	KUNIT_EXPECT_LT(test, t.i, int_to_frac(8000) - int_to_frac(2000));

	for (n = 0; n < 10000; n++)
		pid_step(&params, &tzp, -int_to_frac(20000), FRAC_ONE, POLL_MS, 1000, 8000, &t);
	KUNIT_EXPECT_GE(test, t.i, -int_to_frac(8000));
	tzp.k_i = 5000;
	pid_step(&params, &tzp, int_to_frac(200000), FRAC_ONE, POLL_MS, 1000, 8000, &t);
	KUNIT_EXPECT_GE(test, t.i, -int_to_frac(8000));
	KUNIT_EXPECT_LE(test, t.i, -int_to_frac(8000) + int_to_frac(1));
	pid_step(&params, &tzp, int_to_frac(200000), FRAC_ONE, POLL_MS, 1000, 2000, &t);
	KUNIT_EXPECT_LE(test, t.i, -int_to_frac(8000) + int_to_frac(1));
	pid_step(&params, &tzp, -int_to_frac(1000), FRAC_ONE, POLL_MS, 1000, 2000, &t);
	KUNIT_EXPECT_GE(test, t.i, -int_to_frac(2000));
}

static void ipa_test_integral_cutoff(struct kunit *test)
{
	struct power_allocator_params params = {};
	struct thermal_zone_params tzp = { .k_pu = 200, .k_i = 50, .integral_cutoff = 3000 };
	struct pid_terms t;

	pid_step(&params, &tzp, int_to_frac(5000), FRAC_ONE, POLL_MS, 0, 8000, &t);
	KUNIT_EXPECT_EQ(test, params.err_integral, 0);
	pid_step(&params, &tzp, int_to_frac(2000), FRAC_ONE, POLL_MS, 0, 8000, &t);
	KUNIT_EXPECT_EQ(test, params.err_integral, int_to_frac(2000));

	/* without an integral gain nothing accumulates, to be let loose later */
	tzp.k_i = 0;
	pid_step(&params, &tzp, int_to_frac(2000), FRAC_ONE, POLL_MS, 0, 8000, &t);
	KUNIT_EXPECT_EQ(test, params.err_integral, int_to_frac(2000));
	KUNIT_EXPECT_EQ(test, t.i, 0);
}

/*
 * Below the desired temperature and not getting there, the equilibrium
 * is learnt upwards at k_i / 8; above it, downwards at k_i / 2; never on
 * the way, far above the target, or when the budget does not limit.  Far
 * below, only while the zone gets no warmer, at the band's rate.
 */
static void ipa_test_equilibrium(struct kunit *test)
{
	struct power_allocator_params params = {};
	struct thermal_zone_params tzp = { .k_i = 80 };
	struct pid_terms t = { .err = int_to_frac(1000), .output = 3000 };
	s64 up = (s64)80 / 8 * 1000, down = (s64)80 / 2 * 1000;
	unsigned int i;

	learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, up);
	/* rising 30 m°C a period: there within 50 periods, so no learning */
	learn_equilibrium(&params, &tzp, &t, -int_to_frac(30), FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, up);
	/* the budget does not limit the actors, or another zone holds them */
	learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, false, 8000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, up);
	/* far below: not before EQ_SLOPE_UPDATES slopes tell it has settled */
	t.err = int_to_frac(3 * EQ_BAND_MC);
	for (i = 0; i < EQ_SLOPE_UPDATES; i++) {
		learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, true, 8000);
		KUNIT_EXPECT_EQ(test, params.equilibrium, up);
		note_slope(&params, 0);
	}
	/* settled, its average slope 0: at the band's rate, not faster */
	learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, up + (s64)80 / 8 * EQ_BAND_MC);
	/* not while it warms on average, however slowly, whatever one slope */
	params.equilibrium = up;
	note_slope(&params, -(s64)EQ_SLOPE_UPDATES);
	KUNIT_EXPECT_TRUE(test, warming_lately(&params));
	learn_equilibrium(&params, &tzp, &t, 40, FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, up);
	/* far above: the proportional term's business */
	t.err = -int_to_frac(EQ_BAND_MC + 1);
	learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, up);
	/* above: down, faster */
	t.err = -int_to_frac(1000);
	learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, up - down);
	/* but never below minus the sustainable power */
	t.err = -int_to_frac(EQ_BAND_MC);
	tzp.k_i = 100000;
	learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, -int_to_frac(2000));

	/* it shifts the budget like the sustainable power does */
	tzp.k_i = 0;
	params.equilibrium = int_to_frac(500);
	pid_step(&params, &tzp, 0, FRAC_ONE, POLL_MS, 2000, 8000, &t);
	KUNIT_EXPECT_EQ(test, t.output, 2500u);
}

/*
 * Through allocate_power(): a zone 9 °C below the desired temperature,
 * held there by a budget far too small, learns E once EQ_SLOPE_UPDATES
 * updates have found it no warmer, not before; and not while it warms,
 * however slowly.  Its k_i of 6 learns too: an eighth of it, rounded
 * down, was nothing.  A resume starts the average afresh.
 */
static void ipa_test_learns_far_below(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 300);
	struct power_allocator_params *params;
	u64 now = NSEC_PER_SEC;
	struct thermal_instance *a;
	unsigned int i;

	a = fake_bind(test, tz, 4000, 4000, 1);
	governor_bind(test, tz);
	params = tz->governor_data;
	KUNIT_ASSERT_EQ(test, tz->tzp->k_i, 6);

	tz->temperature = 66000;
	for (i = 0; i <= EQ_SLOPE_UPDATES; i++) {
		KUNIT_EXPECT_EQ(test, params->equilibrium, 0);
		now += 100 * NSEC_PER_MSEC;
		allocate_power(tz, 75000, now);
	}
	KUNIT_EXPECT_GT(test, fake_state(a), 0ul);
	KUNIT_EXPECT_GT(test, params->equilibrium, 0);

	power_allocator_update_tz(tz, THERMAL_TZ_RESUME);
	KUNIT_EXPECT_EQ(test, params->nr_slopes, 0u);
	params->equilibrium = 0;
	for (i = 0; i < 4 * EQ_SLOPE_UPDATES; i++) {
		tz->temperature = 66000 + 10 * i;
		now += 100 * NSEC_PER_MSEC;
		allocate_power(tz, 75000, now);
	}
	KUNIT_EXPECT_EQ(test, params->nr_slopes, EQ_SLOPE_UPDATES);
	KUNIT_EXPECT_EQ(test, params->equilibrium, 0);
}

/*
 * Learning upwards, E first unwinds a negative integral: a zone swinging
 * across the desired temperature would otherwise wind the integral down
 * above it and E up below, without bound.  The budget does not change.
 */
static void ipa_test_equilibrium_unwinds_integral(struct kunit *test)
{
	struct power_allocator_params params = { .err_integral = -192000 };
	struct thermal_zone_params tzp = { .k_i = 80 };
	struct pid_terms t = { .err = int_to_frac(1000), .output = 3000 };
	s64 up = (s64)80 / 8 * 1000;	/* 10000: the integral owes 15000 */

	KUNIT_ASSERT_EQ(test, mul_frac(80, params.err_integral), -(s64)15000);
	learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, 0);
	KUNIT_EXPECT_EQ(test, mul_frac(80, params.err_integral), -(s64)15000 + up);
	/* the rest of the integral, then E */
	learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.err_integral, 0);
	KUNIT_EXPECT_EQ(test, params.equilibrium, 2 * up - 15000);

	/* learning downwards leaves the integral to the controller */
	params.err_integral = -192000;
	t.err = -int_to_frac(1000);
	learn_equilibrium(&params, &tzp, &t, 0, FRAC_ONE, 2000, true, 8000);
	KUNIT_EXPECT_EQ(test, params.err_integral, -192000);
	KUNIT_EXPECT_EQ(test, params.equilibrium, 2 * up - 15000 - (s64)80 / 2 * 1000);
}

/* A throttled device asks for its load's power at full speed. */
static void ipa_test_full_speed_request(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);
	struct thermal_instance *a = fake_bind(test, tz, 4000, 500, 1024);
	struct fake_actor *f = fake(a->cdev);

	KUNIT_EXPECT_EQ(test, full_speed_request(a->cdev, f->state, 500, 4000), 500u);
	f->state = 2;	/* 1000 mW there */
	KUNIT_EXPECT_EQ(test, full_speed_request(a->cdev, f->state, 500, 4000), 2000u);
	KUNIT_EXPECT_EQ(test, full_speed_request(a->cdev, f->state, 1500, 4000), 4000u);
	f->fail = true;
	KUNIT_EXPECT_EQ(test, full_speed_request(a->cdev, f->state, 500, 4000), 500u);
}

/*
 * A grant buys the deepest state it covers; what that leaves of the
 * budget buys whole steps, the cheapest first, never beyond the budget.
 */
static void ipa_test_leftover(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);
	struct power_actor pa[3] = {
		{ .instance = fake_bind(test, tz, 4000, 4000, 1024), .granted_power = 2400 },
		{ .instance = fake_bind(test, tz, 1000, 1000, 1024), .granted_power = 600 },
		{ .instance = fake_bind(test, tz, 8000, 8000, 1024), .granted_power = 100 },
	};
	unsigned int i;

	for (i = 0; i < 3; i++)
		grant_to_state(&pa[i]);
	KUNIT_EXPECT_EQ(test, pa[0].state, 1ul);
	KUNIT_EXPECT_EQ(test, pa[0].state_power, 2000u);
	KUNIT_EXPECT_EQ(test, pa[1].state, 1ul);
	/* below its deepest state's power: the deepest state, 500 mW */
	KUNIT_EXPECT_EQ(test, pa[2].state, (unsigned long)FAKE_MAX_STATE);
	KUNIT_EXPECT_EQ(test, pa[2].state_power, 500u);

	/* 3000 spent of 4000: B's step (500, first of the cheapest), then C's */
	spend_leftover(pa, 3, 4000);
	KUNIT_EXPECT_EQ(test, pa[0].state, 1ul);
	KUNIT_EXPECT_EQ(test, pa[1].state, 0ul);
	KUNIT_EXPECT_EQ(test, pa[2].state, (unsigned long)FAKE_MAX_STATE - 1);
	KUNIT_EXPECT_EQ(test, pa[0].state_power + pa[1].state_power + pa[2].state_power, 4000u);

	/* nothing fits any more */
	spend_leftover(pa, 3, 4500);
	KUNIT_EXPECT_EQ(test, pa[2].state, (unsigned long)FAKE_MAX_STATE - 1);

	/* at half load a state draws half its full-load power */
	pa[0].max_power = 4000;
	pa[0].full_req_power = 2000;
	pa[0].granted_power = 1200;
	grant_to_state(&pa[0]);
	KUNIT_EXPECT_EQ(test, pa[0].state, 2ul);
	KUNIT_EXPECT_EQ(test, pa[0].state_power, 500u);

	/* an actor whose operations fail is left alone, its grant counted */
	fake(pa[2].instance->cdev)->fail = true;
	grant_to_state(&pa[2]);
	KUNIT_EXPECT_FALSE(test, pa[2].has_state);
	pa[2].granted_power = 1000;
	/* 500 + 1000 + 1000 of 3000: A's next step (500 at half load) fits, not two */
	spend_leftover(pa, 3, 3000);
	KUNIT_EXPECT_EQ(test, pa[0].state, 1ul);
	KUNIT_EXPECT_EQ(test, pa[0].state_power, 1000u);
}

/* elapsed_periods() @dt_ns after the last update */
static s64 periods_after(struct power_allocator_params *params, u64 period_ns, u64 dt_ns)
{
	return elapsed_periods(params, period_ns, params->last_update_ns + dt_ns);
}

/* Updates that come late count for more, early ones for less. */
static void ipa_test_irregular_intervals(struct kunit *test)
{
	struct power_allocator_params params = { .last_update_ns = 1000000000ULL };
	struct thermal_zone_params tzp = { .k_pu = 200, .k_i = 50, .k_d = 1024,
					   .integral_cutoff = 100000 };
	u64 period = 100 * NSEC_PER_MSEC, t0 = params.last_update_ns;
	struct pid_terms t;

	KUNIT_EXPECT_EQ(test, periods_after(&params, period, period), FRAC_ONE);
	KUNIT_EXPECT_EQ(test, periods_after(&params, period, 2 * period), 2 * FRAC_ONE);
	KUNIT_EXPECT_EQ(test, periods_after(&params, period, period / 2), FRAC_ONE / 2);
	KUNIT_EXPECT_EQ(test, periods_after(&params, period, 1), MIN_PERIODS);
	/* the whole time, for rates of change (the integral caps it) */
	KUNIT_EXPECT_EQ(test, periods_after(&params, period, 100 * period + period / 4),
			100 * FRAC_ONE + FRAC_ONE / 4);
	KUNIT_EXPECT_EQ(test, periods_after(&params, period, (period << 20) - 1),
			MAX_RATE_PERIODS - 1);
	KUNIT_EXPECT_EQ(test, periods_after(&params, period, period << 20), MAX_RATE_PERIODS);
	/* a period of 2^32 ms and a gap of 2^62 ns: nothing overflows */
	KUNIT_EXPECT_EQ(test, periods_after(&params, 1000000ULL << 32, 1ULL << 62),
			(s64)div64_u64(1ULL << (62 + FRAC_BITS - 32), 1000000));
	/* no polling period, or no previous update: one period each */
	KUNIT_EXPECT_EQ(test, periods_after(&params, 0, 5 * period), FRAC_ONE);
	params.last_update_ns = 0;
	KUNIT_EXPECT_EQ(test, elapsed_periods(&params, period, t0), FRAC_ONE);

	/*
	 * Two periods of an error weigh twice.  After an update, as here,
	 * the derivative counts: not on the first after a reset.
	 */
	params.last_update_ns = t0;
	pid_step(&params, &tzp, int_to_frac(1000), 2 * FRAC_ONE, int_to_frac(200), 0, 100000, &t);
	KUNIT_EXPECT_EQ(test, params.err_integral, int_to_frac(2000));
	/*
	 * The derivative is per millisecond that really passed, and k_d is
	 * in whole mW per m°C/ms, as 6.12 scales it: 400 m°C in 200 ms at
	 * k_d 1024 is 2048 mW.
	 */
	pid_step(&params, &tzp, int_to_frac(1400), 2 * FRAC_ONE, int_to_frac(200), 0, 100000, &t);
	KUNIT_EXPECT_EQ(test, t.d, int_to_frac(2048));
	tzp.k_d = 1;
	pid_step(&params, &tzp, int_to_frac(1000), FRAC_ONE, POLL_MS, 0, 100000, &t);
	KUNIT_EXPECT_EQ(test, t.d, -int_to_frac(4));
}

/*
 * After a resume the next update has neither a period nor a previous
 * error to go by (the monotonic clock stood still while suspended), and
 * what the controller learnt stays.
 */
static void ipa_test_resume(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);
	struct power_allocator_params *params;
	struct pid_terms t;
	u64 now = 5 * NSEC_PER_SEC;

	tz->tzp->k_d = 1024;
	tz->tzp->integral_cutoff = 100000;
	fake_bind(test, tz, 4000, 4000, 1);
	governor_bind(test, tz);
	params = tz->governor_data;
	tz->temperature = 76000;
	allocate_power(tz, 75000, now);
	allocate_power(tz, 75000, now + 100 * NSEC_PER_MSEC);
	KUNIT_ASSERT_NE(test, params->err_integral, 0);
	KUNIT_ASSERT_EQ(test, params->nr_slopes, 1u);
	params->equilibrium = int_to_frac(300);

	power_allocator_update_tz(tz, THERMAL_TZ_RESUME);
	KUNIT_EXPECT_EQ(test, params->last_update_ns, 0ull);
	/* the slopes before the suspend say nothing of the zone after it */
	KUNIT_EXPECT_EQ(test, params->nr_slopes, 0u);
	KUNIT_EXPECT_NE(test, params->err_integral, 0);
	KUNIT_EXPECT_EQ(test, params->equilibrium, int_to_frac(300));
	/* 1 us after the last update by the clock, 20 C cooler by the sensor */
	KUNIT_EXPECT_EQ(test, elapsed_periods(params, 100 * NSEC_PER_MSEC,
					      now + 100 * NSEC_PER_MSEC + 1000), FRAC_ONE);
	pid_step(params, tz->tzp, int_to_frac(19000), FRAC_ONE, POLL_MS, 2000, 4000, &t);
	KUNIT_EXPECT_EQ(test, t.d, 0);
}

/* No polling delay: no division by it (the old governor trapped here). */
static void ipa_test_passive_delay_zero(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);
	struct power_allocator_params *params;
	struct thermal_instance *a;

	tz->passive_delay_jiffies = 0;
	tz->tzp->k_d = 1;	/* 1000 mW for the second update's 1000 m°C in 1 ms */
	a = fake_bind(test, tz, 4000, 4000, 1);
	governor_bind(test, tz);
	tz->temperature = 80000;
	allocate_power(tz, 75000, 1000);
	tz->temperature = 79000;
	allocate_power(tz, 75000, 2000);
	KUNIT_EXPECT_GT(test, fake_state(a), 0ul);

	/* the derivative's period is then the time that really passed */
	params = tz->governor_data;
	KUNIT_EXPECT_EQ(test, update_period_ms(tz, params, 2000 + NSEC_PER_SEC), 1000u);
	KUNIT_EXPECT_EQ(test, update_period_ms(tz, params, 2000 + 40 * NSEC_PER_MSEC), 40u);
	KUNIT_EXPECT_EQ(test, update_period_ms(tz, params, 2500), 1u);
	KUNIT_EXPECT_EQ(test, update_period_ms(tz, params, 1000), 1u);
	params->last_update_ns = 0;
	KUNIT_EXPECT_EQ(test, update_period_ms(tz, params, NSEC_PER_SEC), 1u);
	tz->passive_delay_jiffies = msecs_to_jiffies(100);
	KUNIT_EXPECT_EQ(test, update_period_ms(tz, params, NSEC_PER_SEC),
			jiffies_to_msecs(msecs_to_jiffies(100)));
}

/*
 * A zone of 2000 mW sustainable power whose controller is all derivative
 * (P and I all but off, derivative gain @k_d), and its one actor, *@a, of
 * 4000 mW: at state 1 while the budget is the sustainable power.  Not
 * bound yet, so that a case may change the zone first.
 */
static struct thermal_zone_device *derivative_zone(struct kunit *test, s32 k_d,
						   struct thermal_instance **a)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);

	tz->tzp->k_po = 1;
	tz->tzp->k_pu = 1;
	tz->tzp->k_i = 1;
	tz->tzp->k_d = k_d;
	*a = fake_bind(test, tz, 4000, 4000, 1);
	return tz;
}

/*
 * Updates a second apart, at 77 and then 76 °C, for a desired 80 °C: the
 * actor of a derivative_zone() stays at state 1 through both.
 */
static void cool_a_degree_in_a_second(struct kunit *test, struct thermal_zone_device *tz,
				      struct thermal_instance *a)
{
	tz->temperature = 77000;
	allocate_power(tz, 80000, NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fake_state(a), 1ul);
	tz->temperature = 76000;
	allocate_power(tz, 80000, 2 * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, fake_state(a), 1ul);
}

/*
 * A zone without passive polling, end to end: its derivative spans the
 * time since the last update.  With P and I all but off and k_d 3, a fall
 * of 1 °C over a second adds 3 mW to the sustainable 2000 (the actor at
 * state 1), where a period taken as 1 ms added 3000 (state 0); a fall of
 * 3 °C in the next millisecond adds 9000 (state 0).
 */
static void ipa_test_unpolled_derivative(struct kunit *test)
{
	struct thermal_instance *a;
	struct thermal_zone_device *tz = derivative_zone(test, 3, &a);

	tz->passive_delay_jiffies = 0;
	governor_bind(test, tz);
	cool_a_degree_in_a_second(test, tz, a);
	tz->temperature = 73000;
	allocate_power(tz, 80000, 2 * NSEC_PER_SEC + NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, fake_state(a), 0ul);
}

/*
 * A zone polled every 100 ms while passive, updated a second apart, as the
 * core polls an always-on zone (no switch-on trip) below its passive trip:
 * the derivative and the slope span the second that really passed, the
 * integral the four periods an update counts for at most.  A fall of 1 °C
 * over it at k_d 1000 adds 1000 mW to the sustainable 2000 (the actor
 * stays at state 1); taken over 400 ms it added 2500 (state 0).
 */
static void ipa_test_slow_polling_derivative(struct kunit *test)
{
	struct thermal_instance *a;
	struct thermal_zone_device *tz = derivative_zone(test, 1000, &a);
	struct power_allocator_params *params;

	tz->tzp->integral_cutoff = 100000;
	governor_bind(test, tz);
	params = tz->governor_data;
	cool_a_degree_in_a_second(test, tz, a);
	/* 100 m°C a period over ten of them; 3000 + 4000 m°C for four */
	KUNIT_EXPECT_EQ(test, params->scaled_slope, EQ_SLOPE_UPDATES * int_to_frac(100));
	KUNIT_EXPECT_EQ(test, params->err_integral, int_to_frac(3000 + 4 * 4000));
	/* the same fall in 100 ms is ten times as steep: 10000 mW more */
	tz->temperature = 75000;
	allocate_power(tz, 80000, 2 * NSEC_PER_SEC + 100 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, fake_state(a), 0ul);
}

/*
 * A desired temperature written through sysfs updates the zone at once,
 * here 5 ms after a poll, and moves the error by as much as the trip
 * moved.  The derivative follows the temperature, which did not move:
 * with P and I all but off, the budget stays the sustainable power (the
 * actor at state 1, 2000 of its 4000 mW), where a derivative of the error
 * took 80000 mW off it (state 4) for the update.
 */
static void ipa_test_new_desired_temp(struct kunit *test)
{
	struct thermal_instance *a;
	struct thermal_zone_device *tz = derivative_zone(test, 100, &a);
	u64 now = NSEC_PER_SEC;

	governor_bind(test, tz);
	tz->temperature = 70000;
	allocate_power(tz, 75000, now);
	allocate_power(tz, 75000, now + 100 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, fake_state(a), 1ul);
	allocate_power(tz, 70000, now + 105 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, fake_state(a), 1ul);

	/* a temperature that moves still moves it: 3000 mW for 3 °C in 100 ms */
	tz->temperature = 67000;
	allocate_power(tz, 70000, now + 205 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, fake_state(a), 0ul);
}

static void ipa_test_divvy(struct kunit *test)
{
	struct power_actor pa[3] = {
		{ .weighted_req_power = 1000, .max_power = 5000 },
		{ .weighted_req_power = 3000, .max_power = 5000 },
		{ .weighted_req_power = 0, .max_power = 5000 },
	};

	divvy_up_power(pa, 3, 4000, 2000, false);
	KUNIT_EXPECT_EQ(test, pa[0].granted_power, 500u);
	KUNIT_EXPECT_EQ(test, pa[1].granted_power, 1500u);
	KUNIT_EXPECT_EQ(test, pa[2].granted_power, 0u);

	/* the surplus of a capped actor goes to the others by their headroom */
	pa[1].max_power = 1000;
	divvy_up_power(pa, 3, 4000, 4000, false);
	KUNIT_EXPECT_EQ(test, pa[1].granted_power, 1000u);
	KUNIT_EXPECT_EQ(test, pa[0].granted_power + pa[2].granted_power, 3000u);
	KUNIT_EXPECT_EQ(test, pa[0].granted_power, 1000u + DIV_ROUND_CLOSEST(2000u * 4000, 9000));

	/* nothing requested: an equal split */
	pa[0].weighted_req_power = 0;
	pa[1].weighted_req_power = 0;
	pa[1].max_power = 5000;
	divvy_up_power(pa, 3, 0, 3000, false);
	KUNIT_EXPECT_EQ(test, pa[0].granted_power, 1000u);
	KUNIT_EXPECT_EQ(test, pa[2].granted_power, 1000u);

	/* ...by weight, if there are any: a weight of 0 asks for no share */
	pa[0].weight = FRAC_ONE;
	pa[1].weight = FRAC_ONE / 4;
	divvy_up_power(pa, 3, 0, 3000, false);
	KUNIT_EXPECT_EQ(test, pa[0].granted_power, 2400u);
	KUNIT_EXPECT_EQ(test, pa[1].granted_power, 600u);
	KUNIT_EXPECT_EQ(test, pa[2].granted_power, 0u);

	/* ...but above the desired temperature, nothing to anyone */
	divvy_up_power(pa, 3, 0, 3000, true);
	KUNIT_EXPECT_EQ(test, pa[0].granted_power, 0u);
	KUNIT_EXPECT_EQ(test, pa[1].granted_power, 0u);
	KUNIT_EXPECT_EQ(test, pa[2].granted_power, 0u);

	/* a request is divided by demand, hot or not */
	pa[0].weighted_req_power = 1000;
	divvy_up_power(pa, 3, 1000, 3000, true);
	KUNIT_EXPECT_EQ(test, pa[0].granted_power, 3000u);
}

/*
 * Two idle devices that cannot tell their performance: below the desired
 * temperature they share the budget by weight and wait for work at the
 * state that buys (state 2, 1000 of their 4000 mW each); above it, at
 * their deepest, as they would with state2perf().
 */
static void ipa_test_all_idle(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);
	struct thermal_instance *a = fake_bind(test, tz, 4000, 0, 1);
	struct thermal_instance *b = fake_bind(test, tz, 4000, 0, 1);
	u64 now = NSEC_PER_SEC;

	governor_bind(test, tz);
	tz->temperature = 75000;
	allocate_power(tz, 75000, now);
	KUNIT_EXPECT_EQ(test, fake_state(a), 2ul);
	KUNIT_EXPECT_EQ(test, fake_state(b), 2ul);

	tz->temperature = 76000;
	allocate_power(tz, 75000, now + 100 * NSEC_PER_MSEC);
	KUNIT_EXPECT_EQ(test, fake_state(a), (unsigned long)FAKE_MAX_STATE);
	KUNIT_EXPECT_EQ(test, fake_state(b), (unsigned long)FAKE_MAX_STATE);
}

/* An actor at full load with the given tables, for split_by_efficiency(). */
static void fake_perf_actor(struct kunit *test, struct thermal_zone_device *tz,
			    struct power_actor *pa, const u32 *powers, const u32 *perfs,
			    u32 weight)
{
	struct fake_actor *a;

	pa->instance = fake_bind(test, tz, powers[0], powers[0], weight);
	pa->instance->cdev->ops = &fake_perf_ops;
	a = fake(pa->instance->cdev);
	a->powers = powers;
	a->perfs = perfs;
	pa->max_power = powers[0];
	pa->full_req_power = powers[0];
	pa->weight = weight;
}

/* A: performance per mW from 4.0 (deepest step) down to 1.0 (last) */
static const u32 eff_powers[] = { 1000, 600, 300, 150, 100 };
static const u32 eff_perfs[] = { 2000, 1600, 1100, 700, 500 };
/* B: from 0.9 down to 0.125; the others: a first step of 0.6 or 0.7 */
static const u32 ineff_powers[] = { 2000, 1200, 600, 300, 200 };
static const u32 ineff_perfs[] = { 1000, 880, 690, 490, 400 };
static const u32 flat_perfs[] = { 1000, 900, 700, 500, 440 };
static const u32 near_perfs[] = { 1000, 900, 700, 500, 430 };

/*
 * Knowing what each state delivers, the budget goes where it buys the
 * most.  A better step that does not fit yet is waited for, unless one
 * that fits is nearly as good; weights scale what a step is worth.
 */
static void ipa_test_split_by_efficiency(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);
	struct power_actor pa[2] = {};

	fake_perf_actor(test, tz, &pa[0], eff_powers, eff_perfs, 1024);
	fake_perf_actor(test, tz, &pa[1], ineff_powers, ineff_perfs, 1024);

	/* split by requests, B would get two thirds; A takes it all */
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 1200, 2000, false));
	KUNIT_EXPECT_EQ(test, pa[0].state, 0ul);
	KUNIT_EXPECT_EQ(test, pa[1].state, (unsigned long)FAKE_MAX_STATE);
	KUNIT_EXPECT_EQ(test, pa[0].state_power + pa[1].state_power, 1200u);
	KUNIT_EXPECT_EQ(test, pa[0].perf + pa[1].perf, 2400u);

	/* A's last step (400 mW, 1.0) does not fit in 1150; B's (0.9) does */
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 1150, 2000, false));
	KUNIT_EXPECT_EQ(test, pa[0].state, 1ul);
	KUNIT_EXPECT_EQ(test, pa[1].state, 3ul);

	/* B's worth 0.6 of A's, under two thirds: A's step is waited for ... */
	fake(pa[1].instance->cdev)->perfs = flat_perfs;
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 1150, 2000, false));
	KUNIT_EXPECT_EQ(test, pa[0].state, 1ul);
	KUNIT_EXPECT_EQ(test, pa[1].state, (unsigned long)FAKE_MAX_STATE);
	/* ... unless it costs over half the sustainable power */
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 1150, 700, false));
	KUNIT_EXPECT_EQ(test, pa[1].state, 3ul);
	/* worth 0.7 of A's: B's step is taken */
	fake(pa[1].instance->cdev)->perfs = near_perfs;
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 1150, 2000, false));
	KUNIT_EXPECT_EQ(test, pa[0].state, 1ul);
	KUNIT_EXPECT_EQ(test, pa[1].state, 3ul);

	/* four times the weight: B's steps count four times */
	fake(pa[1].instance->cdev)->perfs = ineff_perfs;
	pa[1].weight = 4 * 1024;
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 1200, 2000, false));
	KUNIT_EXPECT_EQ(test, pa[0].state, 1ul);
	KUNIT_EXPECT_EQ(test, pa[1].state, 2ul);
	KUNIT_EXPECT_EQ(test, pa[0].state_power + pa[1].state_power, 1200u);

	/* less than the deepest states draw: the deepest states */
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 100, 2000, false));
	KUNIT_EXPECT_EQ(test, pa[0].state, (unsigned long)FAKE_MAX_STATE);
	KUNIT_EXPECT_EQ(test, pa[1].state, (unsigned long)FAKE_MAX_STATE);

	/* at half load power and performance halve: the same choice */
	pa[1].weight = 1024;
	pa[0].full_req_power /= 2;
	pa[1].full_req_power /= 2;
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 600, 2000, false));
	KUNIT_EXPECT_EQ(test, pa[0].state, 0ul);
	KUNIT_EXPECT_EQ(test, pa[1].state, (unsigned long)FAKE_MAX_STATE);

	/* idle, B costs nothing at any state: it waits for work at full speed */
	pa[1].full_req_power = 0;
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 600, 2000, false));
	KUNIT_EXPECT_EQ(test, pa[0].state, 0ul);
	KUNIT_EXPECT_EQ(test, pa[1].state, 0ul);
	KUNIT_EXPECT_EQ(test, pa[1].state_power, 0u);
	/* ... but not above the desired temperature, where it waits deepest */
	KUNIT_EXPECT_TRUE(test, split_by_efficiency(pa, 2, 600, 2000, true));
	KUNIT_EXPECT_EQ(test, pa[0].state, 0ul);
	KUNIT_EXPECT_EQ(test, pa[1].state, (unsigned long)FAKE_MAX_STATE);
	KUNIT_EXPECT_EQ(test, pa[1].state_power, 0u);

	/* a device that cannot tell, fails, or fails at one state: by demand */
	pa[1].instance->cdev->ops = &fake_ops;
	KUNIT_EXPECT_FALSE(test, split_by_efficiency(pa, 2, 1200, 2000, false));
	pa[1].instance->cdev->ops = &fake_perf_ops;
	fake(pa[0].instance->cdev)->fail_top = true;
	KUNIT_EXPECT_FALSE(test, split_by_efficiency(pa, 2, 1200, 2000, false));
	fake(pa[0].instance->cdev)->fail_top = false;
	fake(pa[1].instance->cdev)->fail = true;
	KUNIT_EXPECT_FALSE(test, split_by_efficiency(pa, 2, 1200, 2000, false));
}

/* Weights bias the split; all-zero weights count as equal. */
static void ipa_test_weights(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);
	struct power_allocator_params *params;
	struct actor_totals sum;

	fake_bind(test, tz, 4000, 1000, 3 * 1024);
	fake_bind(test, tz, 4000, 1000, 1024);
	governor_bind(test, tz);
	params = tz->governor_data;

	KUNIT_EXPECT_EQ(test, collect_actors(params, &sum, false), 2u);
	KUNIT_EXPECT_EQ(test, params->power[0].weighted_req_power, 3000u);
	KUNIT_EXPECT_EQ(test, params->power[1].weighted_req_power, 1000u);
	KUNIT_EXPECT_EQ(test, sum.max_allocatable, 8000u);

	list_first_entry(&tz->trips[1].thermal_instances, struct thermal_instance,
			 trip_node)->weight = 0;
	list_last_entry(&tz->trips[1].thermal_instances, struct thermal_instance,
			trip_node)->weight = 0;
	power_allocator_update_tz(tz, THERMAL_INSTANCE_WEIGHT_CHANGED);
	collect_actors(params, &sum, false);
	KUNIT_EXPECT_EQ(test, params->power[0].weighted_req_power, 1000u);
	KUNIT_EXPECT_EQ(test, params->power[1].weighted_req_power, 1000u);
}

/*
 * sysfs takes any int as a weight.  Weighted requests too large for 32 bits
 * saturate, and their sum does not wrap, so that nobody's share exceeds the
 * budget; a negative weight asks for no share.
 */
static void ipa_test_extreme_weights(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);
	struct thermal_instance *a = fake_bind(test, tz, 8000, 8000, INT_MAX);
	struct thermal_instance *b = fake_bind(test, tz, 8000, 8000, INT_MAX);
	struct power_allocator_params *params;
	struct actor_totals sum;

	governor_bind(test, tz);
	params = tz->governor_data;
	KUNIT_EXPECT_EQ(test, params->total_weight, 2ull * INT_MAX);

	collect_actors(params, &sum, false);
	KUNIT_EXPECT_EQ(test, params->power[0].weighted_req_power, U32_MAX);
	KUNIT_EXPECT_EQ(test, sum.weighted_req, 2ull * U32_MAX);
	divvy_up_power(params->power, 2, sum.weighted_req, 3000, false);
	KUNIT_EXPECT_EQ(test, params->power[0].granted_power, 1500u);
	KUNIT_EXPECT_EQ(test, params->power[1].granted_power, 1500u);

	a->weight = -1;
	b->weight = 1024;
	power_allocator_update_tz(tz, THERMAL_INSTANCE_WEIGHT_CHANGED);
	KUNIT_EXPECT_EQ(test, params->total_weight, 1024ull);
	collect_actors(params, &sum, false);
	KUNIT_EXPECT_EQ(test, params->power[0].weighted_req_power, 0u);
	divvy_up_power(params->power, 2, sum.weighted_req, 3000, false);
	KUNIT_EXPECT_EQ(test, params->power[0].granted_power, 0u);
	KUNIT_EXPECT_EQ(test, params->power[1].granted_power, 3000u);
}

/*
 * A device may report a power close to U32_MAX: a negative errno stored as
 * its power is.  The zone's sums of powers must not wrap round to small
 * ones: a capped actor's surplus then goes to the others by their real
 * headroom, within the budget, and the estimated sustainable power
 * saturates.
 */
static void ipa_test_huge_powers(struct kunit *test)
{
	static const u32 bogus_powers[FAKE_MAX_STATE + 1] = {
		(u32)-EINVAL, (u32)-EINVAL, (u32)-EINVAL, (u32)-EINVAL, (u32)-EINVAL,
	};
	const u32 bogus = bogus_powers[0];
	struct power_actor pa[3] = {
		{ .weighted_req_power = 0, .max_power = bogus },
		{ .weighted_req_power = 0, .max_power = bogus },
		{ .weighted_req_power = 1000, .max_power = 1000 },
	};
	struct thermal_zone_device *tz = fake_zone(test, 0);
	struct thermal_instance *a, *b;
	struct actor_totals sum;

	divvy_up_power(pa, 3, 1000, 3000, false);
	KUNIT_EXPECT_EQ(test, pa[0].granted_power, 1000u);
	KUNIT_EXPECT_EQ(test, pa[1].granted_power, 1000u);
	KUNIT_EXPECT_EQ(test, pa[2].granted_power, 1000u);

	a = fake_bind(test, tz, bogus, bogus, 0);
	b = fake_bind(test, tz, bogus, bogus, 0);
	fake(a->cdev)->powers = bogus_powers;
	fake(b->cdev)->powers = bogus_powers;
	governor_bind(test, tz);
	KUNIT_EXPECT_EQ(test, estimate_sustainable_power(tz->governor_data), U32_MAX);

	collect_actors(tz->governor_data, &sum, false);
	KUNIT_EXPECT_EQ(test, sum.req, 2ull * bogus);
	KUNIT_EXPECT_EQ(test, sum.max_allocatable, 2ull * bogus);
	KUNIT_EXPECT_EQ(test, sum.demand, 2ull * bogus);
}

/*
 * An actor whose power operations fail is left out of the allocation, and
 * the others get exactly what they would get without it (the old governor
 * shifted their grants by one).  It is stepped instead: one state deeper
 * per update above the desired temperature, one shallower at or below it;
 * left at its state, one that failed unthrottled would stay so.
 */
static void ipa_test_actor_failing(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 3000);
	struct thermal_instance *a, *b, *c;
	unsigned long sa, sc;

	a = fake_bind(test, tz, 8000, 1000, 1024);
	b = fake_bind(test, tz, 8000, 8000, 1024);
	c = fake_bind(test, tz, 2000, 2000, 1024);
	governor_bind(test, tz);

	fake(b->cdev)->fail = true;
	tz->temperature = 80000;
	allocate_power(tz, 75000, 1000);
	KUNIT_EXPECT_EQ(test, fake_state(b), 1ul);
	allocate_power(tz, 75000, 1100);
	allocate_power(tz, 75000, 1200);
	KUNIT_EXPECT_EQ(test, fake_state(b), 3ul);

	reset_pid_controller(tz->governor_data);
	fake(a->cdev)->state = 0;
	fake(c->cdev)->state = 0;
	tz->temperature = 75000;
	allocate_power(tz, 75000, 1000);
	sa = fake_state(a);
	sc = fake_state(c);
	KUNIT_EXPECT_EQ(test, fake_state(b), 2ul);
	/* c is traced as the third actor, as in 6.12, though only two answered */
	KUNIT_EXPECT_EQ(test, ((struct power_allocator_params *)tz->governor_data)->power[1].id,
			2u);

	/* the same without b at all, from the same states */
	list_del(&b->trip_node);
	power_allocator_update_tz(tz, THERMAL_TZ_UNBIND_CDEV);
	reset_pid_controller(tz->governor_data);
	fake(a->cdev)->state = 0;
	fake(c->cdev)->state = 0;
	allocate_power(tz, 75000, 1000);
	KUNIT_EXPECT_EQ(test, fake_state(a), sa);
	KUNIT_EXPECT_EQ(test, fake_state(c), sc);
}

/*
 * An actor the buffer has no room for (growing it failed), or whose
 * power2state() alone fails, is stepped too, and nothing is learnt of the
 * zone while a device is stepped: the budget does not account for it.
 */
static void ipa_test_stepped_actors(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 3000);
	struct power_allocator_params *params;
	struct thermal_instance *a, *b, *c;
	s64 equilibrium = int_to_frac(300);

	a = fake_bind(test, tz, 8000, 8000, 1024);
	b = fake_bind(test, tz, 8000, 8000, 1024);
	c = fake_bind(test, tz, 8000, 8000, 1024);
	governor_bind(test, tz);
	params = tz->governor_data;
	KUNIT_ASSERT_EQ(test, allocate_actors_buffer(params, 1), 0);
	fake(a->cdev)->fail_power2state = true;
	params->equilibrium = equilibrium;

	/* 1 C above, steady: E would be learnt down on the second update */
	tz->temperature = 76000;
	allocate_power(tz, 75000, 1000);
	allocate_power(tz, 75000, 1100);
	KUNIT_EXPECT_EQ(test, fake_state(a), 2ul);
	KUNIT_EXPECT_EQ(test, fake_state(b), 2ul);
	KUNIT_EXPECT_EQ(test, fake_state(c), 2ul);
	KUNIT_EXPECT_EQ(test, params->equilibrium, equilibrium);

	/* all answering again, with room for all: the same updates learn */
	fake(a->cdev)->fail_power2state = false;
	KUNIT_ASSERT_EQ(test, allocate_actors_buffer(params, 3), 0);
	reset_pid_controller(params);
	allocate_power(tz, 75000, 2000);
	allocate_power(tz, 75000, 2100);
	KUNIT_EXPECT_LT(test, params->equilibrium, equilibrium);
}

/*
 * With every actor failing, the devices are still stepped: one state
 * deeper per update above the desired temperature, up to their limit,
 * one shallower below it, down to theirs.
 */
static void ipa_test_all_failing(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 3000);
	struct power_allocator_params *params;
	struct thermal_instance *a, *b;
	s64 integral, equilibrium;
	unsigned int i;

	a = fake_bind(test, tz, 8000, 8000, 1024);
	b = fake_bind(test, tz, 2000, 2000, 1024);
	b->lower = 1;
	governor_bind(test, tz);
	fake(a->cdev)->fail = true;
	fake(b->cdev)->fail = true;

	/* what the controller learnt before is not wiped by the failures */
	params = tz->governor_data;
	integral = -int_to_frac(700);
	equilibrium = int_to_frac(300);
	params->err_integral = integral;
	params->equilibrium = equilibrium;

	tz->temperature = 80000;
	allocate_power(tz, 75000, 1000);
	KUNIT_EXPECT_EQ(test, params->err_integral, integral);
	KUNIT_EXPECT_EQ(test, params->equilibrium, equilibrium);
	KUNIT_EXPECT_EQ(test, fake_state(a), 1ul);
	KUNIT_EXPECT_EQ(test, fake_state(b), 2ul);
	for (i = 0; i < 2 * FAKE_MAX_STATE; i++)
		allocate_power(tz, 75000, 1000 + 100 * (i + 1));
	KUNIT_EXPECT_EQ(test, fake_state(a), (unsigned long)FAKE_MAX_STATE);
	KUNIT_EXPECT_EQ(test, fake_state(b), (unsigned long)FAKE_MAX_STATE);

	tz->temperature = 70000;
	allocate_power(tz, 75000, 3000);
	KUNIT_EXPECT_EQ(test, fake_state(a), FAKE_MAX_STATE - 1ul);
	for (i = 0; i < 2 * FAKE_MAX_STATE; i++)
		allocate_power(tz, 75000, 3100 + 100 * i);
	KUNIT_EXPECT_EQ(test, fake_state(a), 0ul);
	KUNIT_EXPECT_EQ(test, fake_state(b), 1ul);
	/* reaching the desired temperature from just below: E is learnt there */
	tz->temperature = 74990;
	allocate_power(tz, 75000, 3100 + 100 * i);
	tz->temperature = 75000;
	allocate_power(tz, 75000, 3200 + 100 * i);
	KUNIT_EXPECT_EQ(test, params->err_integral, integral);
	KUNIT_EXPECT_EQ(test, params->equilibrium, equilibrium);
}

/* One update of @tz at @temp. */
static void manage_at(struct thermal_zone_device *tz, int temp)
{
	mutex_lock(&tz->lock);
	tz->temperature = temp;
	power_allocator_manage(tz);
	mutex_unlock(&tz->lock);
}

/* @updates updates of @tz below switch-on. */
static void updates_below_switch_on(struct thermal_zone_device *tz, unsigned int updates)
{
	while (updates--)
		manage_at(tz, 64000);
}

/*
 * A device the zone's previous governor left throttled is released at the
 * first update below switch-on; one throttled after that is left alone,
 * as the governor leaves devices below switch-on.
 */
static void ipa_test_releases_after_bind(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 2000);
	struct thermal_instance *a = fake_bind(test, tz, 4000, 1000, 1);

	a->target = 3;
	fake(a->cdev)->state = 3;
	governor_bind(test, tz);
	updates_below_switch_on(tz, 1);
	KUNIT_EXPECT_EQ(test, fake_state(a), 0ul);

	fake(a->cdev)->state = 2;
	updates_below_switch_on(tz, 1);
	KUNIT_EXPECT_EQ(test, fake_state(a), 2ul);
}

/* @updates updates of @tz, 100 ms apart from *@now on, at 66 °C. */
static void updates_at_66(struct thermal_zone_device *tz, unsigned int updates, u64 *now)
{
	tz->temperature = 66000;
	while (updates--) {
		*now += 100 * NSEC_PER_MSEC;
		allocate_power(tz, 75000, *now);
	}
}

/*
 * A budget so far short that the zone swings about switch-on, cooling
 * whenever it is above: E is learnt, though no stay above lasts
 * EQ_SLOPE_UPDATES updates.  The slope average is kept across short stops
 * (the first update after one gives it no slope); restarted at each, it
 * never had enough slopes to go by.  Back after longer than the average
 * spans, control restarts it: in time, however few updates came below
 * switch-on meanwhile; without passive polling, in updates.
 */
static void ipa_test_learns_about_switch_on(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 300);
	struct power_allocator_params *params;
	u64 now = NSEC_PER_SEC;
	struct thermal_instance *a;
	unsigned int swing, i;

	a = fake_bind(test, tz, 4000, 4000, 1);
	governor_bind(test, tz);
	params = tz->governor_data;

	for (swing = 0; swing < 8; swing++) {
		for (i = 0; i < EQ_SLOPE_UPDATES / 4; i++) {
			manage_at(tz, 66000 - 10 * i);
			KUNIT_EXPECT_GT(test, fake_state(a), 0ul);
		}
		manage_at(tz, 64000);
		KUNIT_EXPECT_EQ(test, fake_state(a), 0ul);
	}
	KUNIT_EXPECT_EQ(test, params->nr_slopes, EQ_SLOPE_UPDATES);
	KUNIT_EXPECT_GT(test, params->equilibrium, 0);

	tz = fake_zone(test, 300);
	fake_bind(test, tz, 4000, 4000, 1);
	governor_bind(test, tz);
	params = tz->governor_data;
	updates_at_66(tz, EQ_SLOPE_UPDATES + 1, &now);
	KUNIT_ASSERT_EQ(test, params->nr_slopes, EQ_SLOPE_UPDATES);
	updates_below_switch_on(tz, 1);
	now += EQ_SLOPE_UPDATES * 100 * NSEC_PER_MSEC;
	allocate_power(tz, 75000, now);
	KUNIT_EXPECT_EQ(test, params->nr_slopes, EQ_SLOPE_UPDATES);
	updates_below_switch_on(tz, 1);
	now += EQ_SLOPE_UPDATES * 100 * NSEC_PER_MSEC + 1;
	allocate_power(tz, 75000, now);
	KUNIT_EXPECT_EQ(test, params->nr_slopes, 0u);

	/* without passive polling, in updates */
	tz->passive_delay_jiffies = 0;
	updates_at_66(tz, EQ_SLOPE_UPDATES, &now);
	KUNIT_ASSERT_EQ(test, params->nr_slopes, EQ_SLOPE_UPDATES);
	updates_below_switch_on(tz, EQ_SLOPE_UPDATES);
	updates_at_66(tz, 1, &now);
	KUNIT_EXPECT_EQ(test, params->nr_slopes, EQ_SLOPE_UPDATES);
	updates_below_switch_on(tz, EQ_SLOPE_UPDATES + 1);
	updates_at_66(tz, 1, &now);
	KUNIT_EXPECT_EQ(test, params->nr_slopes, 0u);
}

/*
 * Below switch-on every actor is released, whatever its binding's lower
 * limit: that limit holds only while the trip is crossed.
 */
static void ipa_test_switch_on(struct kunit *test)
{
	struct power_allocator_params *params;
	struct thermal_zone_device *tz = fake_zone(test, 1000);
	struct thermal_instance *a = fake_bind(test, tz, 8000, 8000, 1);

	a->lower = 1;
	governor_bind(test, tz);
	mutex_lock(&tz->lock);
	tz->temperature = 90000;
	power_allocator_manage(tz);
	KUNIT_EXPECT_GT(test, fake_state(a), 1ul);
	tz->temperature = 40000;
	power_allocator_manage(tz);
	mutex_unlock(&tz->lock);
	params = tz->governor_data;
	KUNIT_EXPECT_EQ(test, fake_state(a), 0ul);
	KUNIT_EXPECT_EQ(test, params->err_integral, 0);

	/* a desired temperature invalidated at runtime controls nothing */
	manage_at(tz, 90000);
	KUNIT_EXPECT_GT(test, fake_state(a), 1ul);
	tz->trips[1].trip.temperature = THERMAL_TEMP_INVALID;
	manage_at(tz, 90000);
	KUNIT_EXPECT_EQ(test, fake_state(a), 0ul);
}

/*
 * A zone is registered before its cooling devices are.  Its estimated
 * sustainable power, and the gains estimated from it, follow the devices
 * as they come and go; a sustainable power a user set stays, and the
 * estimate leaves with the governor.
 */
static void ipa_test_estimate_follows_devices(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 0);
	const u32 deepest = 4000u >> FAKE_MAX_STATE;
	struct thermal_instance *b;

	fake_bind(test, tz, 4000, 1000, 1);
	KUNIT_ASSERT_EQ(test, power_allocator_bind(tz), 0);
	manage_at(tz, 40000);
	KUNIT_EXPECT_EQ(test, tz->tzp->sustainable_power, deepest);

	b = fake_bind(test, tz, 4000, 1000, 1);
	power_allocator_update_tz(tz, THERMAL_TZ_BIND_CDEV);
	manage_at(tz, 40000);
	KUNIT_EXPECT_EQ(test, tz->tzp->sustainable_power, 2 * deepest);
	KUNIT_EXPECT_EQ(test, tz->tzp->k_pu, (s32)(int_to_frac(4 * deepest) / 10000));

	list_del(&b->trip_node);
	power_allocator_update_tz(tz, THERMAL_TZ_UNBIND_CDEV);
	manage_at(tz, 40000);
	KUNIT_EXPECT_EQ(test, tz->tzp->sustainable_power, deepest);

	/* estimated again to the same power, the zone still shows it */
	power_allocator_update_tz(tz, THERMAL_TZ_BIND_CDEV);
	manage_at(tz, 40000);
	KUNIT_EXPECT_EQ(test, tz->tzp->sustainable_power, deepest);

	/* leaving, the governor takes its estimate back */
	power_allocator_unbind(tz);
	KUNIT_EXPECT_EQ(test, tz->tzp->sustainable_power, 0u);

	/* a user's sustainable power is the user's, whatever binds */
	governor_bind(test, tz);
	tz->tzp->sustainable_power = 1234;
	manage_at(tz, 40000);
	list_add_tail(&b->trip_node, &tz->trips[1].thermal_instances);
	power_allocator_update_tz(tz, THERMAL_TZ_BIND_CDEV);
	manage_at(tz, 40000);
	KUNIT_EXPECT_EQ(test, tz->tzp->sustainable_power, 1234u);
}

/* Cool @tz below switch-on with @integral and E at @e_mw; E afterwards. */
static s64 fold_at_switch_off(struct thermal_zone_device *tz, s64 integral, s64 e_mw)
{
	struct power_allocator_params *params = tz->governor_data;

	params->err_integral = integral;
	params->equilibrium = int_to_frac(e_mw);
	mutex_lock(&tz->lock);
	tz->temperature = 40000;
	power_allocator_manage(tz);
	mutex_unlock(&tz->lock);
	return params->equilibrium;
}

/*
 * Cooling below switch-on resets the integral; a negative one is folded
 * into a positive E, which was learnt to make up for it, and alone would
 * overshoot the next heat-up: as far as it cancels E, no further than 0.
 * The integral changes E in no other case.
 */
static void ipa_test_reset_keeps_offset(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 1000);
	struct power_allocator_params *params;
	s64 k_i, integral, e_mw;
	unsigned int i;

	fake_bind(test, tz, 8000, 8000, 1);
	governor_bind(test, tz);
	params = tz->governor_data;
	k_i = tz->tzp->k_i;
	KUNIT_ASSERT_GT(test, k_i, 0);
	/* an overshoot left the integral 400 mW down, and E 600 mW up */
	integral = -div_frac(int_to_frac(400), k_i);
	params->err_integral = integral;
	params->equilibrium = int_to_frac(600);

	mutex_lock(&tz->lock);
	tz->temperature = 40000;
	power_allocator_manage(tz);
	KUNIT_EXPECT_EQ(test, params->err_integral, 0);
	KUNIT_EXPECT_EQ(test, params->equilibrium, int_to_frac(600) + mul_frac(k_i, integral));
	KUNIT_EXPECT_LE(test, abs(params->equilibrium - int_to_frac(200)), int_to_frac(1));
	mutex_unlock(&tz->lock);

	/* more overshoot than E made up for: E goes to zero, not below */
	KUNIT_EXPECT_EQ(test, fold_at_switch_off(tz, -div_frac(int_to_frac(5000), k_i), 200), 0);
	/* one overshoot alone leaves the next heat-up its sustainable power */
	KUNIT_EXPECT_EQ(test, fold_at_switch_off(tz, -div_frac(int_to_frac(400), k_i), 0), 0);
	/* a negative E is neither cancelled nor deepened */
	KUNIT_EXPECT_EQ(test, fold_at_switch_off(tz, div_frac(int_to_frac(200), k_i), -500),
			-int_to_frac(500));
	KUNIT_EXPECT_EQ(test, fold_at_switch_off(tz, -div_frac(int_to_frac(200), k_i), -500),
			-int_to_frac(500));

	/*
	 * An integral wound up below the desired temperature (integral_cutoff
	 * above 0, the budget unused) adds nothing to E, however many cycles.
	 */
	integral = div_frac(int_to_frac(8000), k_i);
	e_mw = 300;
	for (i = 0; i < 4; i++)
		e_mw = frac_to_int(fold_at_switch_off(tz, integral, e_mw));
	KUNIT_EXPECT_EQ(test, e_mw, 300);
	KUNIT_EXPECT_EQ(test, fold_at_switch_off(tz, integral, 0), 0);
}

/*
 * power_allocator as the default governor is called for a zone that was
 * left without a governor when binding failed: it has no data, and must
 * not touch anything.
 */
static void ipa_test_manage_unbound(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 1000);
	struct thermal_instance *a = fake_bind(test, tz, 8000, 8000, 1);

	fake(a->cdev)->state = 2;
	mutex_lock(&tz->lock);
	tz->temperature = 90000;
	power_allocator_manage(tz);
	mutex_unlock(&tz->lock);
	KUNIT_EXPECT_EQ(test, fake_state(a), 2ul);
}

/* Devices bound and unbound while throttling: the buffer follows. */
static void ipa_test_bind_while_throttling(struct kunit *test)
{
	struct thermal_zone_device *tz = fake_zone(test, 3000);
	struct power_allocator_params *params;
	struct thermal_instance *b;

	fake_bind(test, tz, 8000, 4000, 1);
	governor_bind(test, tz);
	params = tz->governor_data;
	tz->temperature = 80000;
	allocate_power(tz, 75000, 1000);

	b = fake_bind(test, tz, 8000, 4000, 1);
	power_allocator_update_tz(tz, THERMAL_TZ_BIND_CDEV);
	KUNIT_EXPECT_EQ(test, params->num_actors, 2u);
	KUNIT_EXPECT_EQ(test, params->nr_slots, 2u);
	allocate_power(tz, 75000, 2000);
	KUNIT_EXPECT_GT(test, fake_state(b), 0ul);

	list_del(&b->trip_node);
	power_allocator_update_tz(tz, THERMAL_TZ_UNBIND_CDEV);
	KUNIT_EXPECT_EQ(test, params->num_actors, 1u);
	allocate_power(tz, 75000, 3000);

	/* no actors left: nothing to do, nothing to crash */
	list_del(&list_first_entry(&tz->trips[1].thermal_instances, struct thermal_instance,
				   trip_node)->trip_node);
	power_allocator_update_tz(tz, THERMAL_TZ_UNBIND_CDEV);
	KUNIT_EXPECT_EQ(test, params->num_actors, 0u);
	KUNIT_EXPECT_EQ(test, params->nr_slots, 0u);
	allocate_power(tz, 75000, 4000);
}

static struct kunit_case ipa_test_cases[] = {
	KUNIT_CASE(ipa_test_fixed_point),
	KUNIT_CASE(ipa_test_defaults),
	KUNIT_CASE(ipa_test_user_gains_kept),
	KUNIT_CASE(ipa_test_rebind_gains),
	KUNIT_CASE(ipa_test_gains_when_trips_allow),
	KUNIT_CASE(ipa_test_gains_follow_trips),
	KUNIT_CASE(ipa_test_trips_reversed),
	KUNIT_CASE(ipa_test_pid_terms),
	KUNIT_CASE(ipa_test_anti_windup),
	KUNIT_CASE(ipa_test_integral_cutoff),
	KUNIT_CASE(ipa_test_irregular_intervals),
	KUNIT_CASE(ipa_test_resume),
	KUNIT_CASE(ipa_test_equilibrium),
	KUNIT_CASE(ipa_test_equilibrium_unwinds_integral),
	KUNIT_CASE(ipa_test_learns_far_below),
	KUNIT_CASE(ipa_test_full_speed_request),
	KUNIT_CASE(ipa_test_leftover),
	KUNIT_CASE(ipa_test_passive_delay_zero),
	KUNIT_CASE(ipa_test_unpolled_derivative),
	KUNIT_CASE(ipa_test_slow_polling_derivative),
	KUNIT_CASE(ipa_test_new_desired_temp),
	KUNIT_CASE(ipa_test_releases_after_bind),
	KUNIT_CASE(ipa_test_divvy),
	KUNIT_CASE(ipa_test_all_idle),
	KUNIT_CASE(ipa_test_split_by_efficiency),
	KUNIT_CASE(ipa_test_weights),
	KUNIT_CASE(ipa_test_extreme_weights),
	KUNIT_CASE(ipa_test_huge_powers),
	KUNIT_CASE(ipa_test_actor_failing),
	KUNIT_CASE(ipa_test_stepped_actors),
	KUNIT_CASE(ipa_test_all_failing),
	KUNIT_CASE(ipa_test_switch_on),
	KUNIT_CASE(ipa_test_learns_about_switch_on),
	KUNIT_CASE(ipa_test_estimate_follows_devices),
	KUNIT_CASE(ipa_test_reset_keeps_offset),
	KUNIT_CASE(ipa_test_manage_unbound),
	KUNIT_CASE(ipa_test_bind_while_throttling),
	{}
};

static struct kunit_suite ipa_test_suite = {
	.name = "thermal_power_allocator",
	.test_cases = ipa_test_cases,
};

kunit_test_suite(ipa_test_suite);
