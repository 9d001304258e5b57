#include "frugal/tune/search_space.h"

#include <gtest/gtest.h>

#include <cmath>

namespace frugal::tune {
namespace {

SearchSpace MakeSpace() {
  Param lr{"lr", ParamKind::kFloat, Scale::kLog, 1e-4, 1e-1, {}, {}, {}, {}};
  Param layers{"layers", ParamKind::kInt, Scale::kLinear, 1, 4, {}, {}, {}, {}};
  Param opt{"optimizer", ParamKind::kCategorical, Scale::kLinear, 0, 0, {"sgd", "adam"}, {}, {},
            {}};
  Param momentum{
      "momentum", ParamKind::kFloat, Scale::kLinear, 0.5, 0.99, {}, {{"optimizer", {"sgd"}}}, {},
      {}};
  Param epochs{"epochs", ParamKind::kFixed, Scale::kLinear, 0, 0, {"15"}, {}, {int64_t{15}}, {}};
  return SearchSpace({lr, layers, opt, momentum, epochs});
}

TEST(SearchSpace, LogFloatIsUniformInLogSpace) {
  const Config c = MakeSpace().ToConfig({0.5, 0.0, 0.0, 0.0, 0.0});
  EXPECT_NEAR(std::get<double>(c.at("lr")), std::sqrt(1e-4 * 1e-1), 1e-9);
}

TEST(SearchSpace, IntsCoverEveryValueEqually) {
  const SearchSpace space = MakeSpace();
  EXPECT_EQ(std::get<int64_t>(space.ToConfig({0, 0.0, 0, 0, 0}).at("layers")), 1);
  EXPECT_EQ(std::get<int64_t>(space.ToConfig({0, 0.26, 0, 0, 0}).at("layers")), 2);
  EXPECT_EQ(std::get<int64_t>(space.ToConfig({0, 0.99, 0, 0, 0}).at("layers")), 4);
}

TEST(SearchSpace, ConditionalParameterOnlyWhenParentMatches) {
  const SearchSpace space = MakeSpace();
  const Config sgd = space.ToConfig({0.1, 0.1, 0.2, 0.5, 0.3});
  ASSERT_EQ(std::get<std::string>(sgd.at("optimizer")), "sgd");
  EXPECT_NEAR(std::get<double>(sgd.at("momentum")), 0.745, 1e-9);
  const Config adam = space.ToConfig({0.1, 0.1, 0.7, 0.5, 0.3});
  ASSERT_EQ(std::get<std::string>(adam.at("optimizer")), "adam");
  EXPECT_FALSE(adam.contains("momentum"));
  EXPECT_EQ(std::get<int64_t>(adam.at("epochs")), 15);  // written as a number, given as one
}

TEST(SearchSpace, ToUnitInvertsToConfig) {
  const SearchSpace space = MakeSpace();
  const Config c = space.ToConfig({0.3, 0.6, 0.2, 0.8, 0.5});
  EXPECT_NEAR(space.ToUnit(space.params()[0], c), 0.3, 1e-9);
  EXPECT_NEAR(space.ToUnit(space.params()[3], c), 0.8, 1e-9);
  EXPECT_EQ(space.ToUnit(space.params()[3], space.ToConfig({0.3, 0.6, 0.9, 0.8, 0.5})), -1.0);
}

}  // namespace
}  // namespace frugal::tune
