// SPDX-License-Identifier: GPL-2.0
/*
 * The power allocator governor: a PID controller on the temperature of a
 * thermal zone whose output, a power budget, is divided among the zone's
 * cooling devices through the power API.
 *
 * The controller runs between two passive trips: below the first
 * (switch-on) every device may draw all the power it wants; above it the
 * budget is
 *
 *	P = sustainable_power + E + k_p * e + k_i * sum(e * dt) + k_d * de / dt
 *
 * for e = desired temperature (last passive trip) - temperature, with
 * k_po while overshooting and k_pu otherwise.  E corrects the sustainable
 * power: it is learnt from where the zone settles, so that the zone holds
 * the desired temperature even with a sustainable power that is off and
 * integral_cutoff 0.  When every device tells the performance of its
 * states, the budget buys the states that deliver the most per mW;
 * otherwise it is divided in proportion to what each device would draw
 * at full speed under its present load, weighted by its binding, and
 * what a device cannot use goes to the others.
 *
 * Fixed point: gains and errors carry FRAC_BITS fractional bits, as the
 * sysfs ABI defines them; products saturate instead of overflowing.  Time
 * is counted in polling periods measured between updates, so that updates
 * that come early or a little late neither speed up nor slow down the
 * integral; an update counts for four periods at most there, as one
 * sample should not stand for a long stall (or the slow polling of an
 * always-on zone below its trip).  Rates of change are taken over the
 * time that really passed.
 */

#define pr_fmt(fmt) "Power allocator: " fmt

#include <linux/bits.h>
#include <linux/ktime.h>
#include <linux/limits.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/thermal.h>

#define CREATE_TRACE_POINTS
#include "thermal_trace_ipa.h"

#include "thermal_core.h"

#define FRAC_BITS 10
#define FRAC_ONE ((s64)BIT(FRAC_BITS))
#define int_to_frac(x) ((s64)(x) * FRAC_ONE)
#define frac_to_int(x) ((x) >> FRAC_BITS)

/* Saturation bounds of fixed-point values: far beyond any power in mW. */
#define FRAC_MAX (S64_MAX >> (FRAC_BITS + 1))
#define FRAC_MIN (-FRAC_MAX)

/*
 * An update counts for at least 1/16 and at most 4 polling periods; a
 * rate of change is taken over up to 2^20 of them.
 */
#define MIN_PERIODS (FRAC_ONE / 16)
#define MAX_PERIODS (4 * FRAC_ONE)
#define MAX_RATE_PERIODS (FRAC_ONE << 20)

/*
 * Sums of device powers are taken in 64 bits and saturated where 32 are
 * passed on: a device may report up to U32_MAX mW (a negative errno stored
 * as its power is close to that), and several such wrapped a 32-bit sum
 * round to a small one.
 */
static u32 sat_u32(u64 x)
{
	return min_t(u64, x, U32_MAX);
}

static s64 sat_frac(s64 x)
{
	return clamp(x, FRAC_MIN, FRAC_MAX);
}

/*
 * x * y for fixed-point x and y, saturated.  Not check_mul_overflow():
 * on a 32-bit machine clang 13, the oldest LLVM the kernel builds with,
 * makes a signed 64-bit one a call to __mulodi4, which the kernel lacks.
 */
static s64 mul_frac(s64 x, s64 y)
{
	u64 ax = x < 0 ? -(u64)x : x, ay = y < 0 ? -(u64)y : y;
	bool negative = (x < 0) != (y < 0);
	s64 r;

	if (ax && ay > div64_u64(S64_MAX, ax))
		return negative ? FRAC_MIN : FRAC_MAX;
	r = ax * ay;
	return sat_frac((negative ? -r : r) >> FRAC_BITS);
}

/* x / y for fixed-point x and y > 0, saturated. */
static s64 div_frac(s64 x, s64 y)
{
	/* FRAC_MAX leaves FRAC_BITS + 1 bits of headroom: no overflow */
	return sat_frac(div64_s64(sat_frac(x) * FRAC_ONE, y));
}

/* Gains are never negative: a negative one would drive away from target. */
static s64 gain(s32 k)
{
	return max(k, 0);
}

/**
 * struct power_step - a step up of one actor, while splitting by efficiency
 * @actor: its index
 * @state: the state it steps to
 * @power: the power it draws there
 * @perf: the performance it delivers there
 * @worth: weighted performance gained per mW, U64_MAX if it costs
 *	nothing; 0: no step
 */
struct power_step {
	unsigned int actor;
	unsigned long state;
	u32 power;
	u32 perf;
	u64 worth;
};

/**
 * struct power_actor - one cooling device's share of an allocation
 * @instance: its binding to the desired-temperature trip
 * @req_power: power it requests
 * @max_power: power at the least cooling state its binding allows
 * @full_req_power: @req_power as it would be at that state: what it would
 *	draw unthrottled at the same load
 * @weighted_req_power: @full_req_power times its weight
 * @granted_power: power granted to it
 * @extra_actor_power: how much more it could take
 * @state: the cooling state it is given, if @has_state
 * @state_power: the power it draws at @state
 * @perf: the performance it delivers at @state, when splitting by
 *	efficiency
 * @weight: its weight, FRAC_ONE for every actor if none is set
 * @next: its best step up from @state, when splitting by efficiency
 * @next_known: @next is up to date
 * @has_state: its power operations gave a state for its grant
 * @id: its position among the zone's power actors, those that failed to
 *	answer included: the actor_id of its tracepoint
 */
struct power_actor {
	struct thermal_instance *instance;
	unsigned int id;
	u32 req_power;
	u32 max_power;
	u32 full_req_power;
	u32 weighted_req_power;
	u32 granted_power;
	u32 extra_actor_power;
	unsigned long state;
	u32 state_power;
	u32 perf;
	u32 weight;
	struct power_step next;
	bool next_known;
	bool has_state;
};

/**
 * struct power_allocator_params - the governor's state for one zone
 * @allocated_tzp: we allocated tz->tzp and free it on unbind
 * @update_cdevs: the devices may be throttled, by us or by whatever
 *	had the zone before us: release them once below switch-on
 * @sustainable_power_estimated: @sustainable_power is our estimate, not
 *	the platform's or a user's
 * @est_range: the range, in m°C, the gains were last estimated over
 *	(see gain_range()), or found too narrow to estimate them over; 0
 *	while they are due, for a new sustainable power.  While it differs
 *	from the trips' present range they are estimated again, as soon as
 *	the trips give a range.
 * @trips_reversed: the switch-on trip was last seen at or above the
 *	desired one, and reported so
 * @err_integral: accumulated error, in periods
 * @prev_err: error of the previous update, for the derivative
 * @prev_temp: the temperature at the previous update
 * @clamped_k_i: k_i at the last update that could sum the integral: a
 *	larger one clamps it at once (see pid_step())
 * @scaled_slope: an exponential average of the error's change per period,
 *	over about EQ_SLOPE_UPDATES updates, times EQ_SLOPE_UPDATES (see
 *	note_slope()), fixed point
 * @nr_slopes: updates that gave @scaled_slope a slope since the governor
 *	was bound, the zone resumed or control came back after a long stop
 *	(see forget_stale_slopes()), up to EQ_SLOPE_UPDATES
 * @last_update_ns: when the controller last ran, 0 after a reset or a resume
 * @stopped_ns: when the controller last ran before it was last off, for
 *	how stale @scaled_slope has grown (see note_control_off())
 * @updates_off: updates since then, up to EQ_SLOPE_UPDATES + 1
 * @sustainable_power: the sustainable power the gains were estimated for,
 *	or are due to be
 * @equilibrium: what the zone has been seen to need beyond
 *	@sustainable_power to hold the desired temperature, mW fixed point;
 *	learnt near it and kept across resets
 * @equilibrium_temp: the desired temperature @equilibrium was learnt for
 * @est_k_po: k_po as we last estimated it; a different tz->tzp->k_po was
 *	set by a user and is kept
 * @est_k_pu: the same for k_pu
 * @est_k_i: the same for k_i
 * @trip_switch_on: first passive trip, or NULL if there is only one
 * @trip_max: last passive trip: the temperature controlled for
 * @total_weight: sum of the actors' weights (one written negative counts 0);
 *	0 weighs them equally
 * @num_actors: the zone's power actors
 * @nr_slots: entries of @power, fewer than @num_actors if it could not be
 *	reallocated for more (the actors it has no room for are stepped, see
 *	collect_actors())
 * @power: per-actor scratch space for an allocation
 */
struct power_allocator_params {
	bool allocated_tzp;
	bool update_cdevs;
	bool sustainable_power_estimated;
	bool trips_reversed;
	s64 est_range;
	s64 err_integral;
	s64 prev_err;
	int prev_temp;
	s32 clamped_k_i;
	s64 scaled_slope;
	unsigned int nr_slopes;
	u64 last_update_ns;
	u64 stopped_ns;
	unsigned int updates_off;
	u32 sustainable_power;
	s64 equilibrium;
	int equilibrium_temp;
	s32 est_k_po;
	s32 est_k_pu;
	s32 est_k_i;
	const struct thermal_trip *trip_switch_on;
	const struct thermal_trip *trip_max;
	u64 total_weight;
	unsigned int num_actors;
	unsigned int nr_slots;
	struct power_actor *power;
};

/**
 * struct pid_terms - one run of the controller
 * @err: desired minus current temperature, fixed point
 * @p: proportional term, mW fixed point
 * @i: integral term
 * @d: derivative term
 * @output: the budget, mW
 */
struct pid_terms {
	s64 err, p, i, d;
	u32 output;
};

static bool power_actor_is_valid(struct thermal_instance *instance)
{
	return cdev_is_power_actor(instance->cdev);
}

/*
 * sysfs takes any int as a weight, and shows it as one: a weight above
 * INT_MAX was written negative, and counts as 0 (no share while another
 * actor has a weight; with every weight 0, the actors weigh the same).
 */
static u32 instance_weight(const struct thermal_instance *instance)
{
	return instance->weight > INT_MAX ? 0 : instance->weight;
}

static struct list_head *actor_list(struct power_allocator_params *params)
{
	return &trip_to_trip_desc(params->trip_max)->thermal_instances;
}

/*----------------------------------------------------------------*/

/*
 * Without a sustainable power from the platform, take the power of every
 * actor at its deepest cooling state: low, but safe.
 */
static u32 estimate_sustainable_power(struct power_allocator_params *params)
{
	struct thermal_instance *instance;
	u64 sustainable_power = 0;
	u32 min_power;

	if (!params->trip_max)
		return 0;

	list_for_each_entry(instance, actor_list(params), trip_node) {
		struct thermal_cooling_device *cdev = instance->cdev;

		if (!power_actor_is_valid(instance) ||
		    cdev->ops->state2power(cdev, instance->upper, &min_power))
			continue;
		sustainable_power += min_power;
	}

	return sat_u32(sustainable_power);
}

/* Replace @k by @estimate unless a user set it: it still holds @*prev. */
static void update_gain(s32 *k, s32 *prev, s32 estimate)
{
	if (*k == *prev)
		*k = estimate;
	*prev = estimate;
}

/*
 * The switch-on trip the gains count from, if any.  One not set yet (a
 * writable trip still THERMAL_TEMP_INVALID) is none, as in manage():
 * counted from -274 °C, the range would be over four times as wide and
 * the gains as much too weak.
 */
static const struct thermal_trip *set_switch_on(const struct power_allocator_params *params)
{
	const struct thermal_trip *switch_on = params->trip_switch_on;

	return switch_on && switch_on->temperature != THERMAL_TEMP_INVALID ? switch_on : NULL;
}

/*
 * The range the default gains spread the budget over: from switch-on to
 * @control_temp, or from 0 °C without a switch-on trip, as the governor
 * always has.  A switch-on trip at or above @control_temp counts as none
 * (see check_trip_order()): left without gains, the controller would hand
 * out the sustainable power whatever the temperature.
 */
static s64 gain_range(const struct power_allocator_params *params, int control_temp)
{
	const struct thermal_trip *switch_on = set_switch_on(params);

	if (switch_on && switch_on->temperature < control_temp)
		return (s64)control_temp - switch_on->temperature;
	return control_temp;
}

/*
 * A switch-on trip at or above the desired one (most likely trips written
 * in the wrong order) leaves the zone alone up to switch-on and, past it,
 * controls for a temperature the zone has already passed.  Say so when the
 * trips come to be so, not at every update.
 */
static void check_trip_order(struct thermal_zone_device *tz,
			     struct power_allocator_params *params, int control_temp)
{
	const struct thermal_trip *switch_on = set_switch_on(params);
	bool reversed = switch_on && control_temp != THERMAL_TEMP_INVALID &&
			switch_on->temperature >= control_temp;

	if (reversed && !params->trips_reversed)
		dev_warn(&tz->device,
			 "power_allocator: switch-on trip at %d mC is not below the desired %d mC\n",
			 switch_on->temperature, control_temp);
	params->trips_reversed = reversed;
}

/*
 * Default gains: the proportional term alone takes the budget from three
 * times the sustainable power at switch-on to the sustainable power at the
 * desired temperature (k_pu), and half as steeply above it (k_po); k_i is
 * a tenth of k_pu, k_d and integral_cutoff stay 0.  Gains a user or the
 * platform set are kept.  Nothing is estimated over an empty range: a
 * desired temperature not set yet (THERMAL_TEMP_INVALID), or at or below
 * 0 °C without a switch-on trip below it: nothing sensible to guess.
 */
static void estimate_pid_constants(struct thermal_zone_device *tz,
				   struct power_allocator_params *params,
				   u32 sustainable_power, int control_temp)
{
	struct thermal_zone_params *tzp = tz->tzp;
	s64 delta = gain_range(params, control_temp);
	s32 k_po, k_pu;

	if (delta <= 0) {
		params->est_range = delta;
		return;
	}

	k_po = min_t(s64, div64_s64(int_to_frac(sustainable_power), delta), S32_MAX);
	k_pu = min_t(s64, div64_s64(int_to_frac(2ULL * sustainable_power), delta), S32_MAX);
	update_gain(&tzp->k_po, &params->est_k_po, k_po);
	update_gain(&tzp->k_pu, &params->est_k_pu, k_pu);
	update_gain(&tzp->k_i, &params->est_k_i, max(k_pu / 10, 1));
	params->est_range = delta;
}

/*
 * The sustainable power to use now: the zone's, or an estimate when it has
 * none, which the zone then shows in sysfs.  The gains nobody set follow
 * any change of it or of the trips' range (a trip written through sysfs),
 * as soon as the trips give a range.
 */
static u32 get_sustainable_power(struct thermal_zone_device *tz,
				 struct power_allocator_params *params, int control_temp)
{
	u32 sustainable_power = tz->tzp->sustainable_power;

	if (!sustainable_power) {
		sustainable_power = estimate_sustainable_power(params);
		tz->tzp->sustainable_power = sustainable_power;
		params->sustainable_power_estimated = true;
	} else if (sustainable_power != params->sustainable_power) {
		params->sustainable_power_estimated = false;
	}

	if (sustainable_power != params->sustainable_power) {
		params->sustainable_power = sustainable_power;
		params->equilibrium = 0;
		params->est_range = 0;
	}
	/*
	 * What held one desired temperature does not hold another: the
	 * power a zone sustains grows with its margin over the ambient, and
	 * an E learnt up and kept after the desired trip was lowered takes
	 * the next heat-up past the new one.  A trip invalidated for a
	 * while asks for no control (see power_allocator_manage()): the E
	 * learnt for the temperature it comes back with still holds.
	 */
	if (control_temp != params->equilibrium_temp && control_temp != THERMAL_TEMP_INVALID) {
		params->equilibrium = 0;
		params->equilibrium_temp = control_temp;
	}
	check_trip_order(tz, params, control_temp);
	if (gain_range(params, control_temp) != params->est_range)
		estimate_pid_constants(tz, params, sustainable_power, control_temp);

	return sustainable_power;
}

/*----------------------------------------------------------------*/

/*
 * Polling periods since the last update, fixed point, from MIN_PERIODS to
 * MAX_RATE_PERIODS: what a rate of change is taken over (the integral
 * caps it at MAX_PERIODS).  A zone without passive polling counts every
 * update as one period.
 */
static s64 elapsed_periods(struct power_allocator_params *params, u64 period_ns, u64 now_ns)
{
	u64 dt, whole, rest;

	if (!period_ns || !params->last_update_ns || now_ns <= params->last_update_ns)
		return FRAC_ONE;

	dt = now_ns - params->last_update_ns;
	whole = div64_u64_rem(dt, period_ns, &rest);
	if (whole >= frac_to_int(MAX_RATE_PERIODS))
		return MAX_RATE_PERIODS;
	/*
	 * Shifted, rest (below period_ns, which jiffies_to_nsecs() keeps
	 * below 2^42) cannot overflow where dt could.
	 */
	return clamp_t(s64, (whole << FRAC_BITS) + div64_u64(rest << FRAC_BITS, period_ns),
		       MIN_PERIODS, MAX_RATE_PERIODS);
}

/*
 * The milliseconds each period stands for: the polling period, or for a
 * zone without passive polling, whose updates come from its sensor's
 * interrupts and count one period each, the time that really passed
 * since the last update (at least 1 ms).  Taken as 1 ms there, a fall of
 * 1 °C over a second looked a thousand times as steep to the derivative.
 */
static unsigned int update_period_ms(const struct thermal_zone_device *tz,
				     const struct power_allocator_params *params, u64 now_ns)
{
	u64 ms;

	if (tz->passive_delay_jiffies)
		return jiffies_to_msecs(tz->passive_delay_jiffies);
	if (!params->last_update_ns || now_ns <= params->last_update_ns)
		return 1;
	ms = div_u64(now_ns - params->last_update_ns, NSEC_PER_MSEC);
	return clamp_t(u64, ms, 1, UINT_MAX);
}

/*
 * Take the previous update's error against the desired temperature of
 * this one, @control_temp, so that the derivative and the slope follow
 * the temperature alone.  A new desired temperature (a trip written
 * through sysfs, which updates the zone at once) moves the error in one
 * step: taken for a rate of change, k_d would throw the budget to one end
 * for an update, the more so the sooner after the last one it came.
 */
static void rebase_prev_err(struct power_allocator_params *params, int control_temp)
{
	if (params->last_update_ns)
		params->prev_err = int_to_frac((s64)control_temp - params->prev_temp);
}

/*
 * One step of the controller for error @err (fixed point) after @periods
 * polling periods (at most MAX_PERIODS), @span_ms milliseconds (fixed
 * point) since the last update.
 *
 * The integral accumulates error weighted by the time it lasted, only
 * while the error is below integral_cutoff, and never beyond what
 * max_power can express: it is clamped, so that it unwinds as soon as an
 * error of the other sign is accumulated.  A k_i written larger clamps it
 * at once, summed or not: the integral summed for the smaller one would
 * otherwise pin the budget at 0.  A max_power that shrank does not, with
 * nothing summed: one update in which a device failed to answer would
 * trim for good what the integral learnt.  Nothing accumulates while k_i is
 * 0: a gain set later starts from nothing, not from a sum no clamp held.
 * Nor while no actor answered (@max_power 0): the clamp would wipe what
 * the integral learnt over one update that tells nothing.
 */
static void pid_step(struct power_allocator_params *params, const struct thermal_zone_params *tzp,
		     s64 err, s64 periods, s64 span_ms, u32 sustainable_power,
		     u32 max_power, struct pid_terms *t)
{
	s64 k_i = gain(tzp->k_i), max_frac = int_to_frac(max_power), out;

	t->err = err;
	t->p = mul_frac(gain(err < 0 ? tzp->k_po : tzp->k_pu), err);

	if (k_i && max_power) {
		bool summed = err < int_to_frac(tzp->integral_cutoff);
		s64 integral = params->err_integral;

		if (summed)
			integral = sat_frac(integral + mul_frac(err, periods));
		if ((summed || tzp->k_i > params->clamped_k_i) &&
		    abs(mul_frac(k_i, integral)) > max_frac) {
			s64 limit = div_frac(max_frac, k_i);

			integral = integral < 0 ? -limit : limit;
		}
		params->err_integral = integral;
		params->clamped_k_i = tzp->k_i;
	}
	t->i = mul_frac(k_i, params->err_integral);

	/*
	 * Per millisecond of the time that really passed.  k_d is a whole
	 * number of mW per m°C/ms, not fixed point like the other gains: so
	 * the governor has always scaled it, and so users have tuned it.
	 * The first update after a reset or a resume has no previous error
	 * to take a rate of change from (the tree's governor took the error
	 * itself for one: a kick of k_d times it at every switch-on).
	 */
	if (params->last_update_ns)
		t->d = div_frac(mul_frac(int_to_frac(gain(tzp->k_d)), err - params->prev_err),
				max_t(s64, span_ms, 1));
	else
		t->d = 0;
	params->prev_err = err;

	out = (s64)sustainable_power +
	      frac_to_int(sat_frac(t->p + t->i + t->d + params->equilibrium));
	t->output = clamp_t(s64, out, 0, max_power);
}

/*
 * Learning the equilibrium: within this of the desired temperature (and
 * further below at the rate of this distance, see learn_equilibrium())...
 */
#define EQ_BAND_MC 5000
/* ...when this many more periods at the present slope would not get there... */
#define EQ_HORIZON 50
/* ...and further below, when the last this many updates did not warm it... */
#define EQ_SLOPE_UPDATES 32u
/* ...at these fractions of k_i: down faster than up, against overshoot. */
#define EQ_UP_SHIFT 3
#define EQ_DOWN_SHIFT 1

/*
 * Average the error's change per period over about EQ_SLOPE_UPDATES
 * updates: one update's is noise where the devices' coarse states toggle,
 * and a heavy die warms up by less than that noise.  The average is kept
 * scaled: unscaled, its steps round to nothing near 0 and it stays a
 * little below 0 for good once a zone that warmed has settled.
 */
static void note_slope(struct power_allocator_params *params, s64 slope)
{
	if (params->nr_slopes)
		params->scaled_slope += slope - div_s64(params->scaled_slope, EQ_SLOPE_UPDATES);
	else
		params->scaled_slope = slope * EQ_SLOPE_UPDATES;
	params->nr_slopes = min(params->nr_slopes + 1, EQ_SLOPE_UPDATES);
}

/*
 * Has the zone got warmer on average lately, or is that yet to be seen?
 * Dividing truncates towards 0: what is left of the scaling is no warming.
 */
static bool warming_lately(const struct power_allocator_params *params)
{
	return params->nr_slopes < EQ_SLOPE_UPDATES ||
	       div_s64(params->scaled_slope, EQ_SLOPE_UPDATES) < 0;
}

/*
 * Nothing feeds the slope average while the controller is off (below
 * switch-on, or the desired trip invalid): it still tells how the zone
 * fared when control stopped, for about as long as it spans.  A zone whose
 * budget is short enough to swing it about switch-on comes back within
 * that time and learns on; restarted at every stop, the average never
 * gathered EQ_SLOPE_UPDATES slopes there, and E was never learnt.  Off for
 * longer, the zone may come back on a heat-up the average knows nothing
 * of (kept, it let E learn on the way up, past the desired temperature):
 * the average starts again.  The span is EQ_SLOPE_UPDATES passive polling
 * periods, in time, however few updates came meanwhile (the core polls
 * slower, or not at all, below switch-on); without passive polling every
 * update counts as a period, and it is that many updates.  Called on the
 * first update after the controller was off, with the passive polling
 * period.
 */
static void forget_stale_slopes(struct power_allocator_params *params, u64 period_ns,
				u64 now_ns)
{
	bool stale = period_ns ? now_ns - params->stopped_ns > EQ_SLOPE_UPDATES * period_ns :
				 params->updates_off > EQ_SLOPE_UPDATES;

	if (stale)
		params->nr_slopes = 0;
}

/* Would EQ_HORIZON more periods at @slope take @err across zero? */
static bool heading_there(s64 err, s64 slope)
{
	s64 later = err + EQ_HORIZON * slope;

	return err > 0 ? later <= 0 : later >= 0;
}

/*
 * E is to learn @step upwards, below the desired temperature: a negative
 * integral takes it first, as far as it goes.  With integral_cutoff 0
 * the integral only winds down, above the desired temperature, and E
 * makes up for it below; were E to learn on regardless, a zone swinging
 * across the desired temperature (its devices' states are coarse) would
 * wind the integral down and E up on every swing, without bound, until
 * one of them met its clamp and E could no longer follow the zone.  The
 * budget is the same either way (the integral's part a little short, by
 * div_frac()'s rounding) while neither term is at its clamp.  Returns
 * what is left of @step for E.
 */
static s64 unwind_integral(struct power_allocator_params *params, s64 k_i, s64 step)
{
	s64 owed;

	if (params->err_integral >= 0 || !k_i)
		return step;
	owed = -mul_frac(k_i, params->err_integral);
	if (step >= owed) {
		params->err_integral = 0;
		return step - owed;
	}
	/* below owed, the step leaves the integral negative */
	params->err_integral += div_frac(step, k_i);
	return 0;
}

/*
 * The integral only acts above the desired temperature (integral_cutoff
 * 0), so below it the controller is proportional: with a sustainable
 * power lower than the zone really sustains it settles below the desired
 * temperature, as far below as k_pu needs to make up the difference,
 * giving away performance; with one too high it leans on the integral.
 * Learn the difference from where the zone settles: near the desired
 * temperature, when the temperature is not on its way there by itself
 * (learning on the way up would overshoot), and only while the budget
 * really limits the actors (@limiting) or is above nothing: a budget
 * nobody uses says nothing of the zone.  With a sustainable power well
 * under what the zone sustains (under half, with 10 °C between the
 * trips), it settles further below than EQ_BAND_MC, down to switch-on
 * if there is one: there E is learnt too, at the band's rate (as far
 * below as a zone with a single trip may be), but only once the zone's
 * average slope says it is no longer warming (see note_slope()): a heavy
 * die warms up too slowly for heading_there() to tell, and learning on
 * the way up overshoots.  Far above, the proportional term's steeper
 * k_po is at work, and learning there would follow a burst.  @slope is
 * the change of the error per period.
 */
static void learn_equilibrium(struct power_allocator_params *params,
			      const struct thermal_zone_params *tzp, const struct pid_terms *t,
			      s64 slope, s64 periods, u32 sustainable_power, bool limiting,
			      u32 max_power)
{
	s64 step, lo = -int_to_frac(sustainable_power), hi = int_to_frac(max_power);

	if (t->err < -int_to_frac(EQ_BAND_MC) || abs(slope) > int_to_frac(EQ_BAND_MC))
		return;
	if (heading_there(t->err, slope))
		return;
	if (t->err > int_to_frac(EQ_BAND_MC) && warming_lately(params))
		return;
	if (t->err > 0 && !limiting)
		return;
	if (t->err < 0 && !t->output)
		return;

	/* the fraction of k_i rounded down, but not to nothing: a k_i under 8 learns too */
	step = gain(tzp->k_i) >> (t->err > 0 ? EQ_UP_SHIFT : EQ_DOWN_SHIFT) ?: !!gain(tzp->k_i);
	step = mul_frac(mul_frac(step, min_t(s64, t->err, int_to_frac(EQ_BAND_MC))), periods);
	if (step > 0)
		step = unwind_integral(params, gain(tzp->k_i), step);
	params->equilibrium = clamp(sat_frac(params->equilibrium + step), lo, hi);
}

/*----------------------------------------------------------------*/

/* @x / @d, rounded to the closest; @x + @d / 2 could wrap. */
static u64 div_round_closest(u64 x, u64 d)
{
	u64 rem, q = div64_u64_rem(x, d, &rem);

	return q + (rem >= d - rem);
}

/* The weights of @n actors, added up. */
static u64 sum_of_weights(const struct power_actor *power, unsigned int n)
{
	u64 sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		sum += power[i].weight;
	return sum;
}

/*
 * Divide @power_range among @n actors in proportion to their weighted
 * requests.  If nothing weighted is requested, the devices are idle:
 * above the desired temperature (@hot) none gets a share, so that each
 * waits for work at its deepest state, where a burst cannot add to the
 * overshoot before the next update (as in best_step()); otherwise they
 * share in proportion to their weights (a weight of 0 asks for no
 * share), or equally if all are 0, and wait at the states their shares
 * buy.
 * Then give what actors cannot use, beyond their maximum, to the others
 * in proportion to how far below their maximum they are.
 */
static void divvy_up_power(struct power_actor *power, unsigned int n, u64 total_weighted_req,
			   u32 power_range, bool hot)
{
	u64 extra_power = 0, capped_extra_power = 0;
	u64 total_weight = total_weighted_req ? 0 : sum_of_weights(power, n);
	unsigned int i;

	if (!total_weighted_req && hot)
		power_range = 0;

	for (i = 0; i < n; i++) {
		struct power_actor *pa = &power[i];
		u64 share;

		if (total_weighted_req)
			share = div_round_closest((u64)pa->weighted_req_power * power_range,
						  total_weighted_req);
		else if (total_weight)
			share = div64_u64((u64)pa->weight * power_range, total_weight);
		else
			share = power_range / n;

		if (share > pa->max_power) {
			extra_power += share - pa->max_power;
			share = pa->max_power;
		}
		pa->granted_power = share;
		pa->extra_actor_power = pa->max_power - pa->granted_power;
		capped_extra_power += pa->extra_actor_power;
	}

	if (!extra_power || !capped_extra_power)
		return;

	/* within 32 bits, so that the products below fit in 64 */
	extra_power = min3(extra_power, capped_extra_power, (u64)U32_MAX);
	for (i = 0; i < n; i++) {
		struct power_actor *pa = &power[i];

		pa->granted_power += div_round_closest((u64)pa->extra_actor_power * extra_power,
						       capped_extra_power);
	}
}

/*
 * state2power() is the power at full load; grants, like requests, are at
 * the present load (power2state() scales by it).  Bring @power to that
 * load: @pa->full_req_power is the request at full speed, @pa->max_power
 * the full-load power there.
 */
static u32 at_load(const struct power_actor *pa, u32 power)
{
	if (!pa->max_power)
		return power;
	return div_u64((u64)power * pa->full_req_power, pa->max_power);
}

/* The state @pa's grant buys, within its binding, and its power there. */
static void grant_to_state(struct power_actor *pa)
{
	struct thermal_instance *instance = pa->instance;
	struct thermal_cooling_device *cdev = instance->cdev;
	unsigned long state;

	pa->has_state = !cdev->ops->power2state(cdev, pa->granted_power, &state);
	if (!pa->has_state)
		return;
	pa->state = clamp_val(state, instance->lower, instance->upper);
	if (cdev->ops->state2power(cdev, pa->state, &pa->state_power))
		pa->state_power = pa->granted_power;
	else
		pa->state_power = at_load(pa, pa->state_power);
}

/* The power one state less cooling would cost @pa, or 0 if none. */
static u32 step_up_cost(struct power_actor *pa, u32 *power)
{
	struct thermal_cooling_device *cdev = pa->instance->cdev;

	if (!pa->has_state || pa->state <= pa->instance->lower ||
	    cdev->ops->state2power(cdev, pa->state - 1, power))
		return 0;
	*power = at_load(pa, *power);
	if (*power <= pa->state_power)
		return 0;
	return *power - pa->state_power;
}

/*
 * A grant buys the deepest state whose power it covers, so with coarse
 * steps a good part of the budget goes unspent, and the temperature
 * settles below the desired one.  Spend what is left on whole steps,
 * the cheapest that still fits first: those of the small devices, which
 * are usually the efficient ones.  Not above the desired temperature,
 * where rounding down is what stops an overshoot soonest.
 */
static void spend_leftover(struct power_actor *power, unsigned int n, u32 budget)
{
	u64 spent = 0, best_cost;
	u32 cost, best_power = 0, p;
	unsigned int i, best;

	/* an actor without a state keeps its old one: count its grant as spent */
	for (i = 0; i < n; i++)
		spent += power[i].has_state ? power[i].state_power : power[i].granted_power;

	while (spent < budget) {
		best = n;
		best_cost = budget - spent + 1;
		for (i = 0; i < n; i++) {
			cost = step_up_cost(&power[i], &p);
			if (cost && cost < best_cost) {
				best = i;
				best_cost = cost;
				best_power = p;
			}
		}
		if (best == n)
			break;
		power[best].state--;
		power[best].state_power = best_power;
		spent += best_cost;
	}
}

/*
 * The power @pa would draw and the performance it would deliver at
 * @state, both at its present load.
 */
static int state_cost(struct power_actor *pa, unsigned long state, u32 *power, u32 *perf)
{
	struct thermal_cooling_device *cdev = pa->instance->cdev;
	int ret;

	ret = cdev->ops->state2power(cdev, state, power);
	if (!ret)
		ret = cdev->ops->state2perf(cdev, state, perf);
	if (ret)
		return ret;
	*power = at_load(pa, *power);
	*perf = at_load(pa, *perf);
	return 0;
}

/* Free steps tie with one another: the later found, the further, wins. */
static bool better_step(u64 worth, const struct power_step *best)
{
	return worth > best->worth || (worth == U64_MAX && best->worth == U64_MAX);
}

/* What @step adds to the power its actor draws now. */
static u32 step_cost(const struct power_actor *power, const struct power_step *step)
{
	u32 now = power[step->actor].state_power;

	return step->power > now ? step->power - now : 0;
}

/*
 * Keep in @best actor @i's best step up that costs at most @room, if
 * better.  A step that costs nothing at the present load is taken, if
 * @free_steps, whatever it delivers, the furthest first: an idle device
 * then waits for work at full speed.  Not above the desired temperature:
 * there its next burst would run unthrottled until the next update and
 * add to the overshoot, so it waits at its deepest state, where a split
 * by demand, which grants nothing to a device asking for nothing, would
 * leave it too.
 */
static int best_step(struct power_actor *power, unsigned int i, u32 room, bool free_steps,
		     struct power_step *best)
{
	struct power_actor *pa = &power[i];
	unsigned long s;
	u32 p, f;
	u64 worth;
	int ret;

	for (s = pa->state; s-- > pa->instance->lower;) {
		ret = state_cost(pa, s, &p, &f);
		if (ret)
			return ret;
		if (p <= pa->state_power) {
			if (!free_steps)
				continue;
			worth = U64_MAX;
		} else if (f <= pa->perf || p - pa->state_power > room) {
			continue;
		} else {
			worth = div_u64((u64)(f - pa->perf) * pa->weight, p - pa->state_power) + 1;
		}
		if (!better_step(worth, best))
			continue;
		best->actor = i;
		best->state = s;
		best->power = p;
		best->perf = f;
		best->worth = worth;
	}
	return 0;
}

/* The best step up of any of the @n actors that costs at most @room. */
static int best_step_within(struct power_actor *power, unsigned int n, u32 room,
			    bool free_steps, struct power_step *best)
{
	unsigned int i;
	int ret;

	best->worth = 0;
	for (i = 0; i < n; i++) {
		ret = best_step(power, i, room, free_steps, best);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The best step up of any of the @n actors, whatever its cost.  An
 * actor's best step changes only when it moves: it is kept, so that a
 * split costs each actor a scan of its states per move rather than the
 * whole zone's per move of any.
 */
static int best_next_step(struct power_actor *power, unsigned int n, bool free_steps,
			  struct power_step *best)
{
	struct power_step *next;
	unsigned int i;
	int ret;

	best->worth = 0;
	for (i = 0; i < n; i++) {
		next = &power[i].next;
		if (!power[i].next_known) {
			next->worth = 0;
			ret = best_step(power, i, U32_MAX, free_steps, next);
			if (ret)
				return ret;
			power[i].next_known = true;
		}
		if (better_step(next->worth, best))
			*best = *next;
	}
	return 0;
}

/*
 * With the performance of every actor's states known, split @budget
 * where it buys the most: every actor from its deepest state, then the
 * best step up, over and over, while it fits.  Between the combinations
 * on either side of the budget it settles at, the controller alternates,
 * which spends that budget along the most efficient line.  So when the
 * best step does not fit, it is waited for, unless a step that fits is
 * worth two thirds as much (filling the room costs little) or the best
 * would cost over half the sustainable power @sp (alternating across it
 * would swing the temperature).  Above the desired temperature too the
 * budget is filled as far as it goes: it is what the controller asked
 * for, and waiting already leaves some of it unspent; but not with steps
 * that cost nothing now (see best_step()), if @hot.
 *
 * False if an actor cannot tell: the split by demand then sets every
 * state.
 */
static bool split_by_efficiency(struct power_actor *power, unsigned int n, u32 budget, u32 sp,
				bool hot)
{
	struct power_step want, fits;
	unsigned int i;
	u64 spent = 0;

	for (i = 0; i < n; i++)
		if (!power[i].instance->cdev->ops->state2perf)
			return false;

	for (i = 0; i < n; i++) {
		struct power_actor *pa = &power[i];

		pa->state = pa->instance->upper;
		if (state_cost(pa, pa->state, &pa->state_power, &pa->perf))
			return false;
		pa->next_known = false;
		pa->has_state = true;
		spent += pa->state_power;
	}

	for (;;) {
		u32 room = budget > spent ? budget - spent : 0;
		u32 cost;

		if (best_next_step(power, n, !hot, &want))
			return false;
		if (!want.worth)
			break;
		cost = step_cost(power, &want);
		if (cost > room) {
			if (best_step_within(power, n, room, !hot, &fits))
				return false;
			if (!fits.worth)
				break;
			if (cost <= sp / 2 &&
			    fits.worth < mul_u64_u64_div_u64(want.worth, 2, 3))
				break;
			want = fits;
		}
		spent = spent - power[want.actor].state_power + want.power;
		power[want.actor].state = want.state;
		power[want.actor].state_power = want.power;
		power[want.actor].perf = want.perf;
		power[want.actor].next_known = false;
	}

	return true;
}

static void power_actor_set_state(struct thermal_instance *instance, unsigned long state)
{
	struct thermal_cooling_device *cdev = instance->cdev;

	instance->target = state;
	mutex_lock(&cdev->lock);
	__thermal_cdev_update(cdev);
	mutex_unlock(&cdev->lock);
}

/*
 * A device reports the power it draws at its current state, so a
 * throttled one requests little and, split in proportion to requests,
 * gets little: once throttled it stays throttled, however efficient it
 * is.  Scale its request to its least cooling state, as if its load ran
 * unthrottled.
 */
static u32 full_speed_request(struct thermal_cooling_device *cdev, unsigned long state,
			      u32 req_power, u32 max_power)
{
	u32 cur_power;

	if (cdev->ops->state2power(cdev, state, &cur_power) || !cur_power ||
	    cur_power >= max_power)
		return req_power;

	return min_t(u64, div_u64((u64)req_power * max_power, cur_power), max_power);
}

/*
 * Is @instance what holds its device back: the device is at the state
 * this zone last gave it, and that is not its least cooling?  A device
 * shared with another zone may be held deeper by that zone, and a budget
 * it cannot use then says nothing of this zone.
 */
static bool held_by_zone(struct thermal_instance *instance, unsigned long state)
{
	return state == instance->target && state > instance->lower;
}

/*
 * Step an actor the power model cannot serve this update, as step_wise
 * would: one state deeper above the desired temperature (@hot), one
 * shallower at or below it, within its binding's limits.  Left at its
 * state, a device that fails while unthrottled draws its full power
 * whatever the budget: on the emulated SoC, a big cluster failing so at
 * 25 C ambient took the die past the hot trip, at 55 C past the critical
 * one, however deep the others went.
 */
static void step_unanswered(struct thermal_instance *instance, bool hot)
{
	unsigned long state;

	state = instance->target == THERMAL_NO_TARGET ? instance->lower :
		max(instance->target, instance->lower);
	if (hot)
		state = min(state + 1, instance->upper);
	else if (state > instance->lower)
		state--;
	/* set even if unchanged: the device may have been moved behind our back */
	power_actor_set_state(instance, state);
}

/**
 * struct actor_totals - what a zone's actors answered in one update
 * @req: the power they request
 * @weighted_req: the sum of their weighted requests
 * @max_allocatable: their power at the least cooling states they may take
 * @demand: what they would draw unthrottled
 * @nr_held: how many of them this zone holds back
 * @nr_stepped: actors left out of the totals and stepped instead (see
 *	step_unanswered())
 *
 * The sums of powers do not wrap (see sat_u32()).
 */
struct actor_totals {
	u64 req;
	u64 weighted_req;
	u64 max_allocatable;
	u64 demand;
	unsigned int nr_held;
	unsigned int nr_stepped;
};

/* Ask @instance's device for its request and its maximum into @pa. */
static bool ask_actor(struct thermal_instance *instance, struct power_actor *pa)
{
	struct thermal_cooling_device *cdev = instance->cdev;

	memset(pa, 0, sizeof(*pa));
	return !cdev->ops->get_requested_power(cdev, &pa->req_power) &&
	       !cdev->ops->state2power(cdev, instance->lower, &pa->max_power);
}

/*
 * Gather the actors' requests and maxima into @sum, each answering actor
 * in an entry of the buffer, in order; returns how many.  An actor whose
 * power operations fail takes no part in the allocation and is stepped
 * instead, as is one the buffer has no room for (its reallocation
 * failed), according to @hot.
 */
static unsigned int collect_actors(struct power_allocator_params *params,
				   struct actor_totals *sum, bool hot)
{
	struct thermal_instance *instance;
	unsigned int n = 0, id = 0;

	memset(sum, 0, sizeof(*sum));

	list_for_each_entry(instance, actor_list(params), trip_node) {
		struct thermal_cooling_device *cdev = instance->cdev;
		struct power_actor *pa;
		unsigned long state;
		u32 weight;

		if (!power_actor_is_valid(instance))
			continue;

		pa = n < params->nr_slots ? &params->power[n] : NULL;
		if (!pa || !ask_actor(instance, pa)) {
			step_unanswered(instance, hot);
			sum->nr_stepped++;
			id++;
			continue;
		}
		pa->id = id++;

		/* a device whose state cannot be read is taken as it asks */
		if (cdev->ops->get_cur_state(cdev, &state)) {
			pa->full_req_power = pa->req_power;
		} else {
			pa->full_req_power = full_speed_request(cdev, state, pa->req_power,
								pa->max_power);
			sum->nr_held += held_by_zone(instance, state);
		}
		weight = params->total_weight ? instance_weight(instance) : FRAC_ONE;
		pa->weight = weight;
		/* a weight near INT_MAX times a few W does not fit */
		pa->weighted_req_power = min_t(u64, frac_to_int((u64)weight * pa->full_req_power),
					       U32_MAX);
		pa->instance = instance;

		sum->req += pa->req_power;
		sum->demand += pa->full_req_power;
		sum->weighted_req += pa->weighted_req_power;
		sum->max_allocatable += pa->max_power;
		n++;
	}

	return n;
}

static void allocate_power(struct thermal_zone_device *tz, int control_temp, u64 now_ns)
{
	struct power_allocator_params *params = tz->governor_data;
	s64 periods, rate_periods, span_ms, slope;
	s64 err = int_to_frac((s64)control_temp - tz->temperature);
	u64 period_ns, total_granted = 0;
	u32 sp, max_allocatable;
	struct actor_totals sum;
	struct pid_terms t;
	unsigned int i, n;

	if (!params->num_actors)
		return;

	n = collect_actors(params, &sum, err < 0);
	max_allocatable = sat_u32(sum.max_allocatable);

	sp = get_sustainable_power(tz, params, control_temp);
	period_ns = jiffies_to_nsecs(tz->passive_delay_jiffies);
	rate_periods = elapsed_periods(params, period_ns, now_ns);
	periods = min(rate_periods, MAX_PERIODS);
	span_ms = mul_frac(rate_periods, int_to_frac(update_period_ms(tz, params, now_ns)));
	if (!params->last_update_ns)
		forget_stale_slopes(params, period_ns, now_ns);
	rebase_prev_err(params, control_temp);
	/* the change per period; unknown on the first update after a reset */
	slope = params->last_update_ns ? div_frac(err - params->prev_err, rate_periods) : FRAC_MAX;
	if (params->last_update_ns)
		note_slope(params, slope);
	/* recorded after pid_step(), which tells the first update by a 0 */
	pid_step(params, tz->tzp, err, periods, span_ms, sp, max_allocatable, &t);
	params->last_update_ns = now_ns;
	params->prev_temp = tz->temperature;

	trace_thermal_power_allocator_pid(tz, frac_to_int(t.err), frac_to_int(params->err_integral),
					  frac_to_int(t.p), frac_to_int(t.i), frac_to_int(t.d),
					  t.output);

	if (!n)
		goto trace;

	if (!split_by_efficiency(params->power, n, t.output, sp, t.err < 0)) {
		divvy_up_power(params->power, n, sum.weighted_req, t.output, t.err < 0);
		for (i = 0; i < n; i++)
			grant_to_state(&params->power[i]);
		/* above the desired temperature, the deeper states act at once */
		if (t.err >= 0)
			spend_leftover(params->power, n, t.output);
	}

	for (i = 0; i < n; i++) {
		struct power_actor *pa = &params->power[i];

		if (pa->has_state) {
			/* what the state really costs, leftover included */
			pa->granted_power = pa->state_power;
			power_actor_set_state(pa->instance, pa->state);
			total_granted += pa->granted_power;
		} else {
			/* its power2state() failed */
			step_unanswered(pa->instance, t.err < 0);
			sum.nr_stepped++;
		}
		trace_thermal_power_actor(tz, pa->id, pa->req_power, pa->granted_power);
	}

	/*
	 * A device stepped outside the power model draws what the budget
	 * does not account for: what the zone needs would be learnt wrong,
	 * and kept once it answers again.
	 */
	if (!sum.nr_stepped)
		learn_equilibrium(params, tz->tzp, &t, slope, periods, sp,
				  sum.nr_held && t.output < min(sum.demand, sum.max_allocatable),
				  max_allocatable);

trace:
	/* num_actors counts the zone's actors, as it always has, answering or not */
	trace_thermal_power_allocator(tz, sat_u32(sum.req), sat_u32(total_granted),
				      params->num_actors, t.output, max_allocatable,
				      tz->temperature, control_temp - tz->temperature);
}

/*----------------------------------------------------------------*/

/*
 * The switch-on trip is the first passive trip and the desired temperature
 * the last; with one passive trip the governor is always on; with none,
 * the last active trip is controlled for.
 */
static void get_governor_trips(struct thermal_zone_device *tz,
			       struct power_allocator_params *params)
{
	const struct thermal_trip *first_passive = NULL, *last_passive = NULL;
	const struct thermal_trip *last_active = NULL;
	const struct thermal_trip_desc *td;

	for_each_trip_desc(tz, td) {
		const struct thermal_trip *trip = &td->trip;

		if (trip->type == THERMAL_TRIP_PASSIVE) {
			if (!first_passive)
				first_passive = trip;
			else
				last_passive = trip;
		} else if (trip->type == THERMAL_TRIP_ACTIVE) {
			last_active = trip;
		}
	}

	if (last_passive) {
		params->trip_switch_on = first_passive;
		params->trip_max = last_passive;
	} else {
		params->trip_switch_on = NULL;
		params->trip_max = first_passive ?: last_active;
	}
}

/*
 * The controller is about to be reset below switch-on: E was learnt with
 * the integral in place.  With integral_cutoff 0 an integral wound down by
 * an overshoot, and not yet unwound by E (see unwind_integral()), stays
 * until now; reset alone, the next heat-up would start with E and without
 * the integral that offset it, and overshoot.  So a negative integral is
 * folded into a positive E, as far as it cancels it: no further than 0.
 * Nothing else the integral held is kept: one overshoot alone (E not
 * learnt) would leave the next heat-up a budget of nothing at the desired
 * temperature, and an integral wound up below it (integral_cutoff above 0,
 * a zone not using its budget) would add up to max_power at every
 * cool-down, until nothing is throttled at all, or erase an E learnt
 * negative.
 */
static void fold_integral_into_equilibrium(struct power_allocator_params *params,
					   const struct thermal_zone_params *tzp)
{
	s64 e = params->equilibrium;

	if (e > 0 && params->err_integral < 0)
		params->equilibrium = max_t(s64, sat_frac(e + mul_frac(gain(tzp->k_i),
								       params->err_integral)), 0);
}

/*
 * The controller is off for this update: note since when, and for how many
 * updates, for forget_stale_slopes().
 */
static void note_control_off(struct power_allocator_params *params)
{
	if (params->last_update_ns) {
		params->stopped_ns = params->last_update_ns;
		params->updates_off = 0;
	}
	params->updates_off = min(params->updates_off + 1, EQ_SLOPE_UPDATES + 1);
}

/* The slope average is not the controller's: see forget_stale_slopes(). */
static void reset_pid_controller(struct power_allocator_params *params)
{
	params->err_integral = 0;
	params->prev_err = 0;
	params->last_update_ns = 0;
}

/*
 * Below switch-on: release every actor (state 0).  A binding's lower limit
 * applies while its trip is crossed, as for the other governors; holding
 * it here would throttle an idle zone, and every zone sharing the device.
 */
static void allow_maximum_power(struct thermal_zone_device *tz)
{
	struct power_allocator_params *params = tz->governor_data;
	struct thermal_instance *instance;
	u32 req_power;

	list_for_each_entry(instance, actor_list(params), trip_node) {
		struct thermal_cooling_device *cdev = instance->cdev;

		if (!power_actor_is_valid(instance))
			continue;

		instance->target = 0;
		mutex_lock(&cdev->lock);
		/* keeps the device's own load statistics current */
		cdev->ops->get_requested_power(cdev, &req_power);
		if (params->update_cdevs)
			__thermal_cdev_update(cdev);
		mutex_unlock(&cdev->lock);
	}
}

/*
 * Every device bound to the desired trip must be a power actor; the count
 * of them (possibly 0: devices may come later), or -EINVAL.
 */
static int check_power_actors(struct thermal_zone_device *tz,
			      struct power_allocator_params *params)
{
	struct thermal_instance *instance;
	int n = 0;

	if (!params->trip_max)
		return 0;

	list_for_each_entry(instance, actor_list(params), trip_node) {
		if (!power_actor_is_valid(instance)) {
			dev_warn(&tz->device, "power_allocator: %s is not a power actor\n",
				 instance->cdev->type);
			return -EINVAL;
		}
		n++;
	}

	return n;
}

/*
 * Size the per-actor buffer for @num_actors.  If that fails, the old
 * buffer stays and serves as many actors as it holds.
 */
static int allocate_actors_buffer(struct power_allocator_params *params,
				  unsigned int num_actors)
{
	struct power_actor *power = NULL;

	if (num_actors) {
		power = kcalloc(num_actors, sizeof(*power), GFP_KERNEL);
		if (!power)
			return -ENOMEM;
	}

	kfree(params->power);
	params->power = power;
	params->nr_slots = num_actors;
	return 0;
}

static void power_allocator_update_weight(struct power_allocator_params *params)
{
	struct thermal_instance *instance;

	params->total_weight = 0;
	if (!params->trip_max)
		return;

	list_for_each_entry(instance, actor_list(params), trip_node)
		if (power_actor_is_valid(instance))
			params->total_weight += instance_weight(instance);
}

/*
 * The estimate of the zone's sustainable power is ours: forget it, so that
 * the next update estimates it again.  A zone is registered before its
 * cooling devices (cpufreq clusters, a GPU) are; estimated from the first
 * alone and kept, it would be too low once the others come.  Not estimated
 * here: a device unbound and bound again before the next update (a driver
 * reloaded) would change the estimate twice, and each change drops the
 * learnt equilibrium.
 */
static void forget_estimated_power(struct thermal_zone_params *tzp,
				   struct power_allocator_params *params)
{
	if (params->sustainable_power_estimated &&
	    tzp->sustainable_power == params->sustainable_power)
		tzp->sustainable_power = 0;
	params->sustainable_power_estimated = false;
}

static void power_allocator_update_tz(struct thermal_zone_device *tz,
				      enum thermal_notify_event reason)
{
	struct power_allocator_params *params = tz->governor_data;
	struct thermal_instance *instance;
	unsigned int num_actors = 0;

	switch (reason) {
	case THERMAL_TZ_BIND_CDEV:
	case THERMAL_TZ_UNBIND_CDEV:
		if (!params->trip_max)
			break;
		forget_estimated_power(tz->tzp, params);
		list_for_each_entry(instance, actor_list(params), trip_node)
			if (power_actor_is_valid(instance))
				num_actors++;

		params->num_actors = num_actors;
		if (num_actors != params->nr_slots &&
		    allocate_actors_buffer(params, num_actors))
			dev_warn(&tz->device,
				 "power_allocator: no memory for %u actors: those beyond %u are stepped\n",
				 num_actors, params->nr_slots);
		fallthrough;
	case THERMAL_INSTANCE_WEIGHT_CHANGED:
		power_allocator_update_weight(params);
		break;
	case THERMAL_TZ_RESUME:
		/*
		 * The monotonic clock stood still while suspended, and the
		 * temperature did not: the next update has neither a period
		 * nor a previous error to go by.  What was learnt stays.
		 */
		params->last_update_ns = 0;
		params->nr_slopes = 0;
		break;
	default:
		break;
	}
}

static int power_allocator_bind(struct thermal_zone_device *tz)
{
	struct power_allocator_params *params;
	int ret;

	params = kzalloc(sizeof(*params), GFP_KERNEL);
	if (!params)
		return -ENOMEM;

	get_governor_trips(tz, params);

	ret = check_power_actors(tz, params);
	if (ret < 0) {
		dev_warn(&tz->device, "power_allocator: binding failed\n");
		goto free_params;
	}

	params->num_actors = ret;
	ret = allocate_actors_buffer(params, ret);
	if (ret) {
		dev_warn(&tz->device, "power_allocator: allocation failed\n");
		goto free_params;
	}

	if (!tz->tzp) {
		tz->tzp = kzalloc(sizeof(*tz->tzp), GFP_KERNEL);
		if (!tz->tzp) {
			ret = -ENOMEM;
			goto free_power;
		}
		params->allocated_tzp = true;
	}

	if (!tz->tzp->sustainable_power)
		dev_warn(&tz->device, "power_allocator: sustainable_power will be estimated\n");

	/* Gains the platform gave are kept; the others are estimated. */
	if (params->trip_max) {
		u32 sp = tz->tzp->sustainable_power ?: estimate_sustainable_power(params);

		check_trip_order(tz, params, params->trip_max->temperature);
		estimate_pid_constants(tz, params, sp, params->trip_max->temperature);
		params->sustainable_power = tz->tzp->sustainable_power;
		params->equilibrium_temp = params->trip_max->temperature;
	}

	reset_pid_controller(params);
	/*
	 * The governor the zone had before, or user space, may have left
	 * devices throttled: a first update below switch-on releases them.
	 */
	params->update_cdevs = true;
	tz->governor_data = params;
	power_allocator_update_weight(params);

	return 0;

free_power:
	kfree(params->power);
free_params:
	kfree(params);
	return ret;
}

/*
 * Gains that still hold the governor's estimate are its own: it takes them
 * back when it leaves the zone, so that the next binding estimates them
 * afresh instead of taking them for a user's and never updating them.
 */
static void forget_estimated_gains(struct thermal_zone_params *tzp,
				   struct power_allocator_params *params)
{
	if (tzp->k_po == params->est_k_po)
		tzp->k_po = 0;
	if (tzp->k_pu == params->est_k_pu)
		tzp->k_pu = 0;
	if (tzp->k_i == params->est_k_i)
		tzp->k_i = 0;
}

static void power_allocator_unbind(struct thermal_zone_device *tz)
{
	struct power_allocator_params *params = tz->governor_data;

	dev_dbg(&tz->device, "Unbinding from thermal zone %d\n", tz->id);

	if (params->allocated_tzp) {
		kfree(tz->tzp);
		tz->tzp = NULL;
	} else {
		forget_estimated_gains(tz->tzp, params);
		forget_estimated_power(tz->tzp, params);
	}

	kfree(params->power);
	kfree(params);
	tz->governor_data = NULL;
}

static void power_allocator_manage(struct thermal_zone_device *tz)
{
	struct power_allocator_params *params = tz->governor_data;
	const struct thermal_trip *trip;

	lockdep_assert_held(&tz->lock);

	/*
	 * As the default governor, called for a zone left without one when
	 * binding it failed: nothing bound, nothing to control.
	 */
	if (!params || !params->trip_max)
		return;
	trip = params->trip_switch_on;

	/* Tunables written while cool take effect now, not at switch-on. */
	get_sustainable_power(tz, params, params->trip_max->temperature);

	/*
	 * A desired temperature invalidated at runtime (a writable trip set
	 * to THERMAL_TEMP_INVALID) asks for no control: controlling for it
	 * would throttle every device to its deepest state.
	 */
	if ((trip && tz->temperature < trip->temperature) ||
	    params->trip_max->temperature == THERMAL_TEMP_INVALID) {
		note_control_off(params);
		fold_integral_into_equilibrium(params, tz->tzp);
		reset_pid_controller(params);
		allow_maximum_power(tz);
		params->update_cdevs = false;
		return;
	}

	allocate_power(tz, params->trip_max->temperature, ktime_get_ns());
	params->update_cdevs = true;
}

static struct thermal_governor thermal_gov_power_allocator = {
	.name		= "power_allocator",
	.bind_to_tz	= power_allocator_bind,
	.unbind_from_tz	= power_allocator_unbind,
	.manage		= power_allocator_manage,
	.update_tz	= power_allocator_update_tz,
};

THERMAL_GOVERNOR_DECLARE(thermal_gov_power_allocator);

#if IS_ENABLED(CONFIG_THERMAL_GOV_POWER_ALLOCATOR_KUNIT_TEST)
#include "tests/power_allocator_kunit.c"
#endif
