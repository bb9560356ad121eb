"""Questions about everything and nothing, to tell how much an answer is about *this* question.

e5 gives every answer a similarity of its own to questions in general (a short answer with a
pronoun sits lower than one that repeats common words, Chinese higher than English), so a raw
cosine says little on its own. The answer's mean similarity to these questions, in its language,
is that baseline; relevancy counts what the asked question adds above it. Written for ragmeter
on topics far from any one product (the Chinese list translates the English one); none comes
from an evaluation set.
"""

from __future__ import annotations

from ..base import Lang

BACKGROUND: dict[Lang, tuple[str, ...]] = {
    "en": (
        "What is the capital of Australia?",
        "How do I bake sourdough bread at home?",
        "Who painted the ceiling of the Sistine Chapel?",
        "Why is the sky blue?",
        "How many players are on a football team?",
        "When did the Second World War end?",
        "What should I pack for a week of hiking?",
        "How do vaccines train the immune system?",
        "Is coffee bad for your heart?",
        "How can I improve my credit score?",
        "What causes earthquakes?",
        "Which programming language should a beginner learn first?",
        "How often should I water a cactus?",
        "Can dogs eat chocolate?",
        "What is the difference between a virus and a bacterium?",
        "How long does it take to fly from London to Tokyo?",
        "Where do penguins live?",
        "How much sleep does a teenager need?",
        "Why do leaves change colour in autumn?",
        "How do I reset my home router?",
        "What are the symptoms of the flu?",
        "How does compound interest work?",
        "Who wrote Pride and Prejudice?",
        "What is the tallest mountain in Africa?",
        "How do I remove a red wine stain from a carpet?",
        "Do electric cars really pollute less?",
        "How is paper recycled?",
        "What time does the sun set in winter in Oslo?",
        "How do I write a good cover letter?",
        "What is the speed of light?",
    ),
    "zh": (
        "澳大利亚的首都是哪里？",
        "在家怎么烤酸面包？",
        "西斯廷教堂的天顶画是谁画的？",
        "天空为什么是蓝色的？",
        "一支足球队有多少名球员？",
        "第二次世界大战是什么时候结束的？",
        "徒步一周应该带些什么？",
        "疫苗是怎样训练免疫系统的？",
        "喝咖啡对心脏有害吗？",
        "怎样提高我的信用评分？",
        "地震是什么引起的？",
        "初学者应该先学哪种编程语言？",
        "仙人掌多久浇一次水？",
        "狗可以吃巧克力吗？",
        "病毒和细菌有什么区别？",
        "从伦敦飞到东京要多长时间？",
        "企鹅生活在哪里？",
        "青少年需要多少睡眠？",
        "秋天树叶为什么会变色？",
        "怎么重置家里的路由器？",
        "流感有哪些症状？",
        "复利是怎么计算的？",
        "《傲慢与偏见》的作者是谁？",
        "非洲最高的山是哪座？",
        "怎样去掉地毯上的红酒渍？",
        "电动汽车真的污染更少吗？",
        "纸是怎样回收的？",
        "奥斯陆冬天几点日落？",
        "怎样写一封好的求职信？",
        "光速是多少？",
    ),
}
