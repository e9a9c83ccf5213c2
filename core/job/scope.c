// SPDX-License-Identifier: GPL-2.0-only
/* scope.c - what an A/B job measures: the kernel, biobench's userspace
 * model of the bio path, or the workload (scope.h). */
#include <biobench/scope.h>

#include <stdio.h>
#include <string.h>

/* The run options that switch the model, not the kernel. */
static const char *const model_keys[] = {
	"model", "bio_cache", "split_check", "bio_layout", "completion",
	"completion_cpu", "cold_bios", "kernel_cost", "kcost_slab_alloc_ns",
	"kcost_slab_free_ns", "kcost_mempool_ns", "kcost_request_ns",
	"kcost_completion_ns",
};

static bool is_model_key(const char *k)
{
	for (size_t i = 0; i < bb_array_size(model_keys); i++)
		if (!strcmp(k, model_keys[i]))
			return true;
	return false;
}

static void list_add(char *list, size_t len, const char *name)
{
	size_t n = strlen(list);

	if (strstr(list, name))
		return;
	snprintf(list + n, len - n, "%s%s", n ? ", " : "", name);
}

/* The value of key in variant v's overrides (NULL: not overridden). */
static struct json_object *override(struct json_object *vars, const char *v,
				    const char *key)
{
	struct json_object *o = NULL, *val = NULL;

	if (json_object_object_get_ex(vars, v, &o))
		json_object_object_get_ex(o, key, &val);
	return val;
}

/* key differs between some variant and the baseline. */
static bool key_differs(const struct bb_job *job, struct json_object *vars,
			const char *key)
{
	struct json_object *base = override(vars, job->v[0].name, key);

	for (unsigned i = 1; i < job->nvariants; i++) {
		struct json_object *o = override(vars, job->v[i].name, key);

		if (!base != !o || (o && !json_object_equal(base, o)))
			return true;
	}
	return false;
}

static void classify(const struct bb_job *job, struct json_object *vars,
		     const char *key, struct bb_job_scope *s)
{
	if (!key_differs(job, vars, key))
		return;
	if (!strcmp(key, "boot")) {
		/* a boot job: each variant runs on the kernel it boots */
		list_add(s->kernel_fields, sizeof(s->kernel_fields), key);
		s->kernel = true;
		s->boot = true;
	} else if (!strncmp(key, "sysfs.", 6)) {
		list_add(s->kernel_fields, sizeof(s->kernel_fields), key);
		s->kernel = true;
	} else if (!strcmp(key, "sysfs")) {
		/* name the knobs */
		for (unsigned i = 0; i < job->nvariants; i++) {
			struct json_object *k = override(vars, job->v[i].name,
							 "sysfs");

			if (!k || !json_object_is_type(k, json_type_object))
				continue;
			json_object_object_foreach(k, name, val) {
				char full[96];

				(void)val;
				snprintf(full, sizeof(full), "sysfs.%s", name);
				list_add(s->kernel_fields,
					 sizeof(s->kernel_fields), full);
			}
		}
		s->kernel = true;
	} else if (is_model_key(key)) {
		list_add(s->model_fields, sizeof(s->model_fields), key);
		s->model = true;
	} else {
		list_add(s->workload_fields, sizeof(s->workload_fields), key);
		s->workload = true;
	}
}

void bb_job_scope(const struct bb_job *job, struct bb_job_scope *s)
{
	struct json_object *vars = NULL;
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	if (job->spec)
		json_object_object_get_ex(job->spec, "variants", &vars);
	for (unsigned i = 0; vars && i < job->nvariants; i++) {
		struct json_object *o = NULL;

		if (!json_object_object_get_ex(vars, job->v[i].name, &o) ||
		    !json_object_is_type(o, json_type_object))
			continue;
		json_object_object_foreach(o, key, val) {
			(void)val;
			classify(job, vars, key, s);
		}
	}
	/* the put context follows the mode (completion auto): a variant
	 * that changes the mode changes the model's context too */
	for (unsigned i = 1; i < job->nvariants && !strstr(s->model_fields,
							    "completion");
	     i++)
		if (strcmp(bb_config_put_context(&job->v[i].cfg),
			   bb_config_put_context(&job->v[0].cfg))) {
			list_add(s->model_fields, sizeof(s->model_fields),
				 "completion context");
			s->model = true;
		}

	if (s->model)
		n += (size_t)snprintf(s->note + n, sizeof(s->note) - n,
				      "%s: these switch biobench's userspace "
				      "model of the bio path, not the kernel",
				      s->model_fields);
	if (s->boot)
		n += (size_t)snprintf(s->note + n, sizeof(s->note) - n,
				      "%sboot: each variant runs on the kernel "
				      "it boots (boots A B A B ..., each boot "
				      "one value): this measures the kernel",
				      n ? "; " : "");
	if (s->kernel && (!s->boot || strcmp(s->kernel_fields, "boot")) &&
	    n < sizeof(s->note))
		n += (size_t)snprintf(s->note + n, sizeof(s->note) - n,
				      "%s%s: sysfs queue knobs of the device: "
				      BB_KERNEL_SCOPE_NOTE,
				      n ? "; " : "", s->kernel_fields);
	if (s->workload && n < sizeof(s->note))
		n += (size_t)snprintf(s->note + n, sizeof(s->note) - n,
				      "%s%s: the workload differs",
				      n ? "; " : "", s->workload_fields);
	if (s->model && n < sizeof(s->note)) {
		char kc[BB_KCOST_TEXT_LEN];

		/* what is modelled, and what is calibrated (the baseline's) */
		bb_config_kcost_text(&job->v[0].cfg, kc, sizeof(kc));
		n += (size_t)snprintf(s->note + n, sizeof(s->note) - n,
				      "; the model's kernel cost: %s", kc);
	}
	if (!n)
		snprintf(s->note, sizeof(s->note),
			 "the variants run the same configuration");
}

static struct json_object *fields_json(const char *list)
{
	struct json_object *a = json_object_new_array();
	char buf[160], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, ",", &save); t;
	     t = strtok_r(NULL, ",", &save)) {
		while (*t == ' ')
			t++;
		json_object_array_add(a, json_object_new_string(t));
	}
	return a;
}

struct json_object *bb_job_scope_to_json(const struct bb_job_scope *s)
{
	struct json_object *o = json_object_new_object();
	int kinds = s->model + s->kernel + s->workload;
	const char *kind = kinds > 1 ? "mixed" :
			   s->model ? "model" :
			   s->kernel ? "kernel" :
			   s->workload ? "workload" : "none";

	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "model", fields_json(s->model_fields));
	json_object_object_add(o, "kernel", fields_json(s->kernel_fields));
	json_object_object_add(o, "workload", fields_json(s->workload_fields));
	json_object_object_add(o, "note", json_object_new_string(s->note));
	return o;
}
