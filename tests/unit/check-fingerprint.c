/* fingerprint.c: a host's fingerprint, its short name, and which field tells two hosts
 * apart. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "fingerprint.h"
#include "testlib.h"
#include "text.h"

/* A GitHub runner as run records it (the strings borrowed: never released). */
static struct plat_host_facts runner(void)
{
    return (struct plat_host_facts){
        .hostname = "runnervm1",
        .cpu_model = "AMD EPYC 7B13",
        .logical_cpus = 2,
        .kernel = "6.18.44-fc-v1272",
        .virtualization = "kvm",
        .runner_image_os = "ubuntu24",
        .runner_image_version = "20250101.1",
        .runner_name = "GitHub Actions 3",
        .loadavg = {0.5, 0.4, 0.3},
    };
}

START_TEST(the_id_is_fnv1a_folded_of_the_performance_fields)
{
    struct plat_host_facts h = runner();
    struct host_fingerprint fp;
    fingerprint_compute(&h, &fp);
    /* FNV-1a 64 of "cpu_model=AMD EPYC 7B13\nlogical_cpus=2\nkernel=6.18.44-fc-v1272\n
     * virtualization=kvm\nrunner_image=ubuntu24 20250101.1\n", high half xor low half,
     * computed apart (Python) */
    ck_assert_str_eq(fp.id, "16b5b754");
    ck_assert_str_eq(fp.short_name, "EPYC 7B13 x2, 6.18, kvm, ubuntu24 20250101.1");
    /* what does not change the figures does not change the id */
    h.hostname = "runnervm2";
    h.runner_name = "GitHub Actions 9";
    h.loadavg[0] = 7;
    h.governor = "performance";
    struct host_fingerprint same;
    fingerprint_compute(&h, &same);
    ck_assert_str_eq(same.id, fp.id);
    h.kernel = "6.8.0-1017-azure";
    fingerprint_compute(&h, &same);
    ck_assert_str_ne(same.id, fp.id);
    ck_assert_str_eq(same.short_name, "EPYC 7B13 x2, 6.8, kvm, ubuntu24 20250101.1");
}
END_TEST

START_TEST(short_names_keep_the_words_that_tell_cpus_apart)
{
    static const struct {
        const char *model, *kernel, *virt, *shown;
        int cpus;
    } cases[] = {
        {"Intel(R) Xeon(R) Platinum 8370C CPU @ 2.80GHz", "6.5.0-1025-azure", "microsoft",
         "Xeon Platinum 8370C x4, 6.5, microsoft", 4},
        {"AMD EPYC 7763 64-Core Processor", "5.15.0", NULL, "EPYC 7763 x2, 5.15", 2},
        {NULL, NULL, NULL, "unknown CPU x0, unknown kernel", 0},
        {"Apple M2", "23.1.0", NULL, "Apple M2 x8, 23.1", 8},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct plat_host_facts h = {.cpu_model = (char *)cases[i].model,
                                    .kernel = (char *)cases[i].kernel,
                                    .virtualization = (char *)cases[i].virt,
                                    .logical_cpus = cases[i].cpus};
        struct host_fingerprint fp;
        fingerprint_compute(&h, &fp);
        ck_assert_msg(strcmp(fp.short_name, cases[i].shown) == 0, "case %zu: '%s'", i,
                      fp.short_name);
        ck_assert_uint_eq(strlen(fp.id), 8);
        ck_assert_uint_eq(strspn(fp.id, "0123456789abcdef"), 8);
    }
}
END_TEST

/* A long model of several-byte characters is cut on a character, never inside one. */
START_TEST(short_names_are_bounded_on_whole_characters)
{
    for (size_t extra = 0; extra < 3; extra++) {
        char model[400] = "";
        /* ASCII before the characters moves the cut to each of their bytes in turn */
        memset(model, 'x', extra);
        for (int i = 0; i < 100; i++)
            strcat(model, "\xE2\x82\xAC"); /* the euro sign */
        struct plat_host_facts h = {.cpu_model = model, .kernel = "6.1", .logical_cpus = 2};
        struct host_fingerprint fp;
        fingerprint_compute(&h, &fp);
        ck_assert_uint_lt(strlen(fp.short_name), FINGERPRINT_SHORT_MAX);
        ck_assert_uint_ge(strlen(fp.short_name), FINGERPRINT_SHORT_MAX - 3);
        ck_assert_ptr_null(text_control(fp.short_name));
    }
}
END_TEST

START_TEST(differs_names_the_first_field_that_differs)
{
    struct campaign a, b;
    memset(&a, 0, sizeof(a));
    memset(&b, 0, sizeof(b));
    a.host = b.host = runner();
    b.host.hostname = "elsewhere";
    ck_assert_ptr_null(campaign_fingerprint_differs(&a, &b));
    b.host.kernel = "6.1.0-18-amd64";
    ck_assert_str_eq(campaign_fingerprint_differs(&a, &b), "kernel");
    b.host.logical_cpus = 4;
    ck_assert_str_eq(campaign_fingerprint_differs(&a, &b), "logical_cpus");
    b.host = runner();
    b.host.runner_image_version = "20250202.2";
    ck_assert_str_eq(campaign_fingerprint_differs(&a, &b), "runner_image");
    b.host.virtualization = NULL;
    ck_assert_str_eq(campaign_fingerprint_differs(&a, &b), "virtualization");
    b.host.cpu_model = "AMD EPYC 9V74";
    ck_assert_str_eq(campaign_fingerprint_differs(&b, &a), "cpu_model");
    /* the C names are the campaign's, as computed */
    fingerprint_compute(&a.host, &a.fingerprint);
    ck_assert_str_eq(campaign_fingerprint(&a), "16b5b754");
    ck_assert_str_eq(campaign_fingerprint_short(&a),
                     "EPYC 7B13 x2, 6.18, kvm, ubuntu24 20250101.1");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fingerprint");
    TCase *tc = tcase_create("fingerprint");
    tcase_add_test(tc, the_id_is_fnv1a_folded_of_the_performance_fields);
    tcase_add_test(tc, short_names_keep_the_words_that_tell_cpus_apart);
    tcase_add_test(tc, short_names_are_bounded_on_whole_characters);
    tcase_add_test(tc, differs_names_the_first_field_that_differs);
    suite_add_tcase(s, tc);
    return testlib_run(s);
}
