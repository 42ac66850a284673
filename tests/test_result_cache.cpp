// The results cache (core/measure/result_cache.h): a result comes back under its settings' key,
// R's new result replaces it, the byte budget drops the oldest first and refuses one larger than
// the whole budget; the settings keys tell apart what a run measured and nothing else.
#include <doctest/doctest.h>

#include <memory>

#include "measure/result_cache.h"
#include "workloads/activation_workload.h"
#include "workloads/conv2d_workload.h"

using namespace gpulab::core;

TEST_SUITE("measure") {
    TEST_CASE("the results cache returns a result under its key, newest wins, oldest leaves first") {
        ResultCache<int> cache(100);
        CHECK_FALSE(cache.find("relu x 1024"));
        cache.put("relu x 1024", std::make_shared<int>(1), 40, 1000);
        cache.put("sigmoid x 1024", std::make_shared<int>(2), 40, 1001);
        REQUIRE(cache.find("relu x 1024"));
        CHECK(*cache.find("relu x 1024")->result == 1);
        CHECK(cache.find("relu x 1024")->measured_unix_s == 1000);

        cache.put("relu x 1024", std::make_shared<int>(3), 40, 1002);  // R measured again
        CHECK(*cache.find("relu x 1024")->result == 3);
        CHECK(cache.size() == 2);
        CHECK(cache.bytes() == 80);

        cache.put("gelu x 1024", std::make_shared<int>(4), 40, 1003);  // over 100: the oldest goes
        CHECK_FALSE(cache.find("sigmoid x 1024"));
        CHECK(cache.find("relu x 1024"));
        CHECK(cache.find("gelu x 1024"));
        CHECK(cache.bytes() == 80);

        cache.put("huge", std::make_shared<int>(5), 101, 1004);  // larger than the budget: not kept
        CHECK_FALSE(cache.find("huge"));
        CHECK(cache.size() == 2);
    }

    TEST_CASE("cached results say when they were measured") {
        const std::string line = cached_result_line(1'700'000'000);
        CHECK(line.rfind("measured at ", 0) == 0);
        CHECK(line.find("earlier in this session: R measures again") != std::string::npos);
    }

    TEST_CASE("settings keys differ exactly where the measured settings differ") {
        ActivationParams a;
        ActivationParams b = a;
        CHECK(activation_config_key(a) == activation_config_key(b));
        b.elements *= 2;
        CHECK(activation_config_key(a) != activation_config_key(b));
        b = a;
        b.leaky_alpha = 0.2f;  // not used by ReLU: the same measurement
        CHECK(activation_config_key(a) == activation_config_key(b));
        b.activation = Activation::LeakyRelu;
        ActivationParams c = b;
        c.leaky_alpha = 0.3f;
        CHECK(activation_config_key(b) != activation_config_key(c));
        c = a;
        c.image_path = "cat.png";
        CHECK(activation_config_key(a) != activation_config_key(c));

        Conv2dParams p;
        Conv2dParams q = p;
        CHECK(conv2d_config_key(p) == conv2d_config_key(q));
        q.stride = 2;
        CHECK(conv2d_config_key(p) != conv2d_config_key(q));
        q = p;
        q.filter = "sharpen";
        CHECK(conv2d_config_key(p) != conv2d_config_key(q));
        q = p;
        q.per_channel = true;
        CHECK(conv2d_config_key(p) != conv2d_config_key(q));
        // Custom filters differ by their values.
        q = p;
        q.filter = "custom";
        q.custom_filter = Tensor::zeros({1, 1, 3, 3});
        Conv2dParams r = q;
        r.custom_filter.data[4] = 1.0f;
        CHECK(conv2d_config_key(q) != conv2d_config_key(r));
        // Layer mode ignores the picture's filter.
        q = p;
        q.layer_mode = true;
        r = q;
        r.filter = "sharpen";
        CHECK(conv2d_config_key(q) == conv2d_config_key(r));
        r.filters = 8;
        CHECK(conv2d_config_key(q) != conv2d_config_key(r));
    }
}
